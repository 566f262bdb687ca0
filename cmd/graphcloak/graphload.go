package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/stores"
)

// pullProgress adapts terminal progress to ReadGraph's (stage, done)
// callback: a counter per stage (the total is unknown while streaming),
// each stage on its own line. Call the returned end after the pull.
func (g *globalOptions) pullProgress() (progress func(stage string, done int), end func()) {
	if !g.terminal {
		return nil, func() {}
	}
	var mu sync.Mutex
	current := ""
	progress = func(stage string, done int) {
		mu.Lock()
		defer mu.Unlock()
		if current != "" && stage != current {
			fmt.Fprintln(g.stderr)
		}
		current = stage
		fmt.Fprint(g.stderr, "\r"+progressLine("pull "+stage, done, 0))
	}
	end = func() {
		mu.Lock()
		defer mu.Unlock()
		if current != "" {
			fmt.Fprintln(g.stderr)
			current = ""
		}
	}
	return progress, end
}

// loadGraphSpec is stores.LoadGraph for commands that need only the
// graph: any --graph spec, Neo4j included (the configured projection; the
// driver is closed once the graph is read).
func loadGraphSpec(ctx context.Context, g *globalOptions, spec string) (*laplacian.Graph, error) {
	pull, endPull := g.pullProgress()
	lg, err := stores.LoadGraph(ctx, &g.cfg.Config, spec, stores.LoadOptions{Progress: pull, Logger: g.logger})
	endPull()
	if err != nil {
		return nil, err
	}
	lg.Close(context.WithoutCancel(ctx))
	return lg.Graph, nil
}
