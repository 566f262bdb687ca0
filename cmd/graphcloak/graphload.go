package main

import (
	"context"
	"sync"

	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/stores"
)

// pullProgress adapts terminal progress to ReadGraph's (stage, done)
// callback: a counter per stage (the total is unknown while streaming),
// each stage on its own line (progressbar.Stages). Call the returned end
// after the pull.
func (g *globalOptions) pullProgress() (progress func(stage string, done int), end func()) {
	switch {
	case g.terminal:
		return progressbar.Stages(g.stderr)
	case g.quiet:
		return nil, func() {}
	}
	// On a pipe: log lines per stage (progressbar.Log, no total).
	var mu sync.Mutex
	stages := map[string]func(done, total int){}
	return func(stage string, done int) {
		mu.Lock()
		p := stages[stage]
		if p == nil {
			p = g.progress("pull " + stage)
			stages[stage] = p
		}
		mu.Unlock()
		p(done, 0)
	}, func() {}
}

// loadGraphSpec is stores.LoadGraph for commands that need only the
// graph: any --graph spec, Neo4j included (the configured projection; the
// driver is closed once the graph is read).
func loadGraphSpec(ctx context.Context, g *globalOptions, spec string) (*laplacian.Graph, error) {
	lg, err := loadGraph(ctx, g, spec, "")
	if err != nil {
		return nil, err
	}
	return lg.Graph, nil
}

// loadGraph reads the graph of spec (and the community property, when
// named) with the command's progress and logger, and closes its driver.
func loadGraph(ctx context.Context, g *globalOptions, spec, property string) (*stores.Graph, error) {
	pull, endPull := g.pullProgress()
	lg, err := stores.LoadGraph(ctx, &g.cfg.Config, spec, stores.LoadOptions{CommunityProperty: property, Progress: pull, Logger: g.logger})
	endPull()
	if err != nil {
		return nil, err
	}
	lg.Close(context.WithoutCancel(ctx))
	return lg, nil
}
