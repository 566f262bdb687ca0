package recovery

import (
	"math"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// PassCost is the modelled work of the certifier's pass
// (docs/sharding.md): each source needs one action of exp(−τL), and a
// second unless its first proves it keeps no pair (keepsNothing), each K
// Chebyshev steps over the 2|E| + n nonzeros of L, so the pass is
//
//	steps = (S + C + 2·R)·K·(2|E| + n)
//
// nonzero-column-steps for S sources, C of them correlated, and R
// sources refitted. S counts the sources of opt.Shard's blocks that
// opt.Checkpoint does not hold; C is S times the share keptShare finds
// on a sample of sources (all of them where it is not sampled, and with
// opt.EdgeTerms, whose every row is correlated); R, for a
// whole pass, is the end-to-end refit sample (two actions each). A pass
// of the norms alone (a sensor-noise audit's first) is one action a
// source and no refit. A dense action (small graphs) is priced as its
// eigendecomposition and products in the same units.
type PassCost struct {
	Nodes, Edges int
	// Tol and Precise name the pass: its fit tolerance T and action (a
	// sensor-noise audit runs passes at two tolerances).
	Tol     float64
	Precise bool
	// NormsOnly: the pass computes the norms only (one action a source).
	NormsOnly bool
	// Sources counts the sources of the pass's blocks and the refit
	// sample; Correlated those of the blocks whose second action is
	// modelled to run.
	Sources, Correlated int
	Degree              int // K of the loose (or, with Precise, the precise) action; 0 when dense
	Steps               float64
	// ApplyWidth is how many columns the pass applies the action to at
	// once: its step rate is to be measured at that width.
	ApplyWidth int
}

// EstimatePass returns the modelled cost of what NewCertifier (or, with
// opt.Shard set, NewCertifierPart) would run on g at τ with opt: the
// action it needs (the loose one unless opt.Precise or the probe of the
// strongest hubs finds a source too weak for it: needsPrecise, a few
// tenths of a second on 10⁵ edges) and, with opt.SensorNoise, the pass
// of the norms at the default T and the pass at the tolerance the noise
// needs (priced at the default's degree: that tolerance is known only
// from the norms) — the latter alone with opt.WeakestSignal. It builds the actions and computes nothing else.
func EstimatePass(g *laplacian.Graph, tau float64, opt CertifierOptions) (PassCost, error) {
	noise := opt.SensorNoise != 0 && opt.Shard.N == 0
	if noise {
		opt.Tol = 0
	}
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return PassCost{}, err
	}
	var act expm.Action // the probe's loose action, where the pass runs it
	if !opt.Precise && opt.Shard.N == 0 {
		if opt.Precise, act, err = needsPrecise(g, tau, tol); err != nil {
			return PassCost{}, err
		}
	}
	if act == nil || opt.Precise {
		if act, err = action(g, tau, tol, opt.Precise); err != nil {
			return PassCost{}, err
		}
	}
	c := passCost(g, act, tol, opt, false)
	if noise && !(opt.WeakestSignal > 0) {
		opt.Checkpoint = nil
		norms := passCost(g, act, tol, opt, true)
		c.Sources += norms.Sources
		c.Steps += norms.Steps
	}
	return c, nil
}

// passCost is the cost of the pass at tol with act (EstimatePass); of its
// norms alone when normsOnly.
func passCost(g *laplacian.Graph, act expm.Action, tol float64, opt CertifierOptions, normsOnly bool) PassCost {
	n := g.N()
	c := PassCost{Nodes: n, Edges: g.NumEdges(), Tol: tol, Precise: opt.Precise, NormsOnly: normsOnly, ApplyWidth: applyWidth}
	held := map[int]bool{}
	if opt.Checkpoint != nil && !normsOnly {
		for _, b := range opt.Checkpoint.Finished(opt.Precise, tol) {
			if b.check(n) == nil {
				held[b.Block] = true
			}
		}
	}
	for _, blk := range opt.Shard.blocks(n) {
		if !held[blk] {
			c.Sources += min(blockSize, n-blk*blockSize)
		}
	}
	blockSources, refit := c.Sources, 0
	if !normsOnly && opt.Shard.N <= 1 {
		refit = min(n, refitSample)
		c.Sources += refit
	}
	nf := float64(n)
	ch, sparse := act.(*expm.Chebyshev)
	switch {
	case normsOnly:
	case sparse && blockSources > 0 && (opt.EdgeTerms == nil || opt.Shard.N != 0):
		c.Correlated = int(math.Round(keptShare(g, ch, tol) * float64(blockSources)))
	default:
		c.Correlated = blockSources
	}
	if sparse {
		c.Degree = ch.Degree()
		c.Steps = float64(blockSources+c.Correlated+2*refit) * float64(c.Degree) * (2*float64(c.Edges) + nf)
		return c
	}
	actions := 1.0
	if !normsOnly {
		actions = 2
	}
	// Dense: ≈ 4n³ steps for the eigendecomposition (1.5 ns·n³ at 0.4 ns
	// a step, expm's model) and n² a source and action for the products.
	c.Steps = 4*nf*nf*nf + actions*float64(c.Sources)*nf*nf
	return c
}
