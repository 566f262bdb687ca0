package main

import (
	"fmt"

	"github.com/graphcloak/graphcloak/internal/progressbar"
	"github.com/graphcloak/graphcloak/laplacian"
)

// pullProgress adapts terminal progress to ReadGraph's (stage, done)
// callback: a counter per stage (the total is unknown while streaming),
// each stage on its own line (progressbar.Stages). Call the returned end
// after the pull. On a pipe a stage ends when the next begins, and every
// stage at end (progressbar.LogStages): a finished stage is not reported
// again.
func (g *globalOptions) pullProgress() (progress func(stage string, done int), end func()) {
	switch {
	case g.terminal:
		return progressbar.Stages(g.stderr)
	case g.quiet:
		return nil, func() {}
	}
	return progressbar.LogStages(func(stage string) func(done, total int) { return g.progress("pull " + stage) })
}

// sayMerges prints how a loaded graph's repeated pairs were merged and
// how many self-loops it skipped (stores.Options.Merged), a line each on
// stderr unless --quiet: "graph: 156 rows, 78 pairs listed twice merged
// as one edge each: 78 edges (--duplicate-edges merge)", "graph: 2
// self-loops skipped, e.g. (a, a): …". A graph is never changed silently.
func (g *globalOptions) sayMerges(spec string, m laplacian.Merges) {
	if m.Merged > 0 {
		g.say("graph " + spec + ": " + mergesText(m))
	}
	if m.SelfLoops > 0 {
		g.say("graph " + spec + ": " + m.SelfLoopsText())
	}
}

// mergesText is m in words, with the flag that chose the rule.
func mergesText(m laplacian.Merges) string {
	return fmt.Sprintf("%s (%s %s)", m, flagName(laplacian.ParamDuplicateEdges), m.Rule)
}
