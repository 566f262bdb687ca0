package recovery

import (
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// PassCost is the modelled work of the certifier's pass
// (docs/sharding.md): each source needs two actions of exp(−τL), each K
// Chebyshev steps over the 2|E| + n nonzeros of L, so the pass is
//
//	steps = 2·S·K·(2|E| + n)
//
// nonzero-column-steps for S sources. S counts the sources of
// opt.Shard's blocks that opt.Checkpoint does not hold, and, for a whole
// pass, the end-to-end refit sample (two actions each too). A dense
// action (small graphs) is priced as its eigendecomposition and products
// in the same units.
type PassCost struct {
	Nodes, Edges int
	// Tol and Precise name the pass: its fit tolerance T and action (a
	// sensor-noise audit runs passes at two tolerances).
	Tol     float64
	Precise bool
	Sources int
	Degree  int // K of the loose (or, with Precise, the precise) action; 0 when dense
	Steps   float64
}

// EstimatePass returns the modelled cost of the pass NewCertifier (or,
// with opt.Shard set, NewCertifierPart) would run on g at τ with opt. It
// builds the action (cheap) and computes nothing else. The precise
// rerun a weak source may need is not included.
func EstimatePass(g *laplacian.Graph, tau float64, opt CertifierOptions) (PassCost, error) {
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return PassCost{}, err
	}
	act, err := action(g, tau, tol, opt.Precise)
	if err != nil {
		return PassCost{}, err
	}
	return passCost(g, act, tol, opt), nil
}

// passCost is the cost of the pass at tol with act (EstimatePass).
func passCost(g *laplacian.Graph, act expm.Action, tol float64, opt CertifierOptions) PassCost {
	n := g.N()
	c := PassCost{Nodes: n, Edges: g.NumEdges(), Tol: tol, Precise: opt.Precise}
	held := map[int]bool{}
	if opt.Checkpoint != nil {
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
	if opt.Shard.N <= 1 {
		c.Sources += min(n, refitSample)
	}
	nf := float64(n)
	if ch, ok := act.(*expm.Chebyshev); ok {
		c.Degree = ch.Degree()
		c.Steps = 2 * float64(c.Sources) * float64(c.Degree) * (2*float64(c.Edges) + nf)
		return c
	}
	// Dense: ≈ 4n³ steps for the eigendecomposition (1.5 ns·n³ at 0.4 ns
	// a step, expm's model) and 2n² a source for two products.
	c.Steps = 4*nf*nf*nf + 2*float64(c.Sources)*nf*nf
	return c
}
