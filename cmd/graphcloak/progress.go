package main

import "github.com/graphcloak/graphcloak/internal/progressbar"

// progress returns a callback drawing a progress bar for a long step
// (pull, Δ2, recovery, write-back) on stderr when stderr is a terminal
// (progressbar.Bar), and a no-op otherwise (pipes, files and tests stay
// quiet).
func (g *globalOptions) progress(label string) func(done, total int) {
	if !g.terminal {
		return func(int, int) {}
	}
	return progressbar.Bar(g.stderr, label)
}
