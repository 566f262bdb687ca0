package recovery

import (
	"context"
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Shard is the share of the certifier's pass one process computes: the
// blocks of blockSize nodes whose index is I modulo N (N = 0: all). The
// pass is embarrassingly parallel over blocks, and every block's numbers
// are the same whichever process computes them, so N shards merged give
// the certificate one process gives.
type Shard struct{ I, N int }

// blocks returns the shard's block indices on n nodes.
func (s Shard) blocks(n int) []int {
	var out []int
	for blk := 0; blk*blockSize < n; blk++ {
		if s.N <= 1 || blk%s.N == s.I {
			out = append(out, blk)
		}
	}
	return out
}

// Nodes returns the nodes of the shard on n nodes, in order.
func (s Shard) Nodes(n int) []int {
	var out []int
	for _, blk := range s.blocks(n) {
		for j := blk * blockSize; j < min(n, (blk+1)*blockSize); j++ {
			out = append(out, j)
		}
	}
	return out
}

// CertifierPart is one shard's pass: the norms of its nodes (in
// Shard.Nodes order) and the pairs its rows kept, computed with the loose
// or the precise action (Precise).
type CertifierPart struct {
	Shard   Shard     `json:"shard"`
	Precise bool      `json:"precise"`
	Norms   []float64 `json:"norms"`
	Pairs   []Pair    `json:"pairs"`
	// correlated counts the sources whose second action ran (not saved).
	correlated int
}

// action returns the certifier's action of g at τ: loose (error 1e−5·T)
// or precise (the default accuracy).
func action(g *laplacian.Graph, tau, tol float64, precise bool) (expm.Action, error) {
	actTol := tol * looseActionTol
	if precise {
		actTol = 0
	}
	return expm.NewAction(g, tau, expm.Options{Columns: 2 * g.N(), Tol: actTol})
}

// NewCertifierPart runs the pass over opt.Shard's blocks only (all of them
// for the zero Shard). Nothing is checked or merged: MergeCertifierParts
// does that once every shard is in.
func NewCertifierPart(ctx context.Context, g *laplacian.Graph, tau float64, opt CertifierOptions) (*CertifierPart, error) {
	return newCertifierPart(ctx, g, tau, opt, passFull)
}

// passMode is what a pass computes and when it stops.
type passMode int

const (
	// passFull computes every norm and pair.
	passFull passMode = iota
	// passStopWeak is passFull that stops, with *weakSourceError, at the
	// first block holding a source too weak for the pass's action.
	passStopWeak
	// passNorms computes the norms only (one action a source, no pairs,
	// no checkpoint): all a sensor-noise audit needs of its first pass.
	passNorms
)

func newCertifierPart(ctx context.Context, g *laplacian.Graph, tau float64, opt CertifierOptions, mode passMode) (*CertifierPart, error) {
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return nil, err
	}
	if opt.SensorNoise != 0 {
		return nil, &ModelRangeError{Tau: tau, Tol: tol, Reason: "a part of a sharded pass needs the fit tolerance itself, not a sensor-noise bound (an unsharded pass reports the tolerance a bound needs)"}
	}
	if s := opt.Shard; s.N < 0 || (s.N > 0 && (s.I < 0 || s.I >= s.N)) {
		return nil, fmt.Errorf("recovery: shard %d/%d: want 0 ≤ i < N", s.I, s.N)
	}
	act, err := action(g, tau, tol, opt.Precise)
	if err != nil {
		return nil, err
	}
	if opt.Started != nil {
		opt.Started(passCost(g, act, tol, opt, mode == passNorms))
	}
	n := g.N()
	c := &Certifier{g: g, act: act, tau: tau, tol: tol, eta: act.ErrorBound(), mode: mode}
	norm := make([]float64, n)
	var terms *EdgeTerms
	if opt.EdgeTerms != nil && opt.Shard.N == 0 && mode != passNorms {
		terms = opt.EdgeTerms
		terms.reset(g, c.eta, norm)
	}
	cp := opt.Checkpoint
	if mode == passNorms {
		cp = nil // its blocks hold no pairs: never to be taken for a full pass's
	}
	pairs, err := c.pass(ctx, opt.Shard.blocks(n), norm, opt.Progress, cp, opt.Precise, terms)
	if err != nil {
		return nil, err
	}
	part := &CertifierPart{Shard: opt.Shard, Precise: opt.Precise, Pairs: pairs, correlated: c.rowsCorrelated}
	for _, j := range opt.Shard.Nodes(n) {
		part.Norms = append(part.Norms, norm[j])
	}
	return part, nil
}

// ShardError refuses a set of parts that is not every shard of one pass
// exactly once.
type ShardError struct{ Reason string }

func (e *ShardError) Error() string { return "recovery: the certifier's parts " + e.Reason }

// MergeCertifierParts builds the Certifier of g at τ from the parts of its
// pass: every shard 0 … N−1 exactly once, all of one N and one action. It
// refuses a τ the graph cannot resolve (*ModelRangeError) and merges the
// classes. The caller verifies that the parts were computed on this
// graph, τ and tolerance.
func MergeCertifierParts(g *laplacian.Graph, tau float64, opt CertifierOptions, parts []*CertifierPart) (*Certifier, error) {
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, &ShardError{"are missing: none given"}
	}
	N, precise := parts[0].Shard.N, parts[0].Precise
	seen := map[int]bool{}
	n := g.N()
	norm := make([]float64, n)
	for i := range norm {
		norm[i] = math.NaN()
	}
	var pairs []Pair
	correlated := 0
	for _, p := range parts {
		correlated += p.correlated
		switch {
		case p.Shard.N != N:
			return nil, &ShardError{fmt.Sprintf("mix shard counts %d and %d", N, p.Shard.N)}
		case p.Precise != precise:
			return nil, &ShardError{"mix the loose and the precise action"}
		case seen[p.Shard.I]:
			return nil, &ShardError{fmt.Sprintf("hold shard %d/%d twice", p.Shard.I, N)}
		}
		seen[p.Shard.I] = true
		nodes := p.Shard.Nodes(n)
		if len(nodes) != len(p.Norms) {
			return nil, &ShardError{fmt.Sprintf("hold %d norms in shard %d/%d of %d nodes", len(p.Norms), p.Shard.I, N, len(nodes))}
		}
		for k, j := range nodes {
			norm[j] = p.Norms[k]
		}
		for _, q := range p.Pairs {
			if q.J < 0 || int(q.J) >= n || q.K < 0 || int(q.K) >= n {
				return nil, &ShardError{fmt.Sprintf("name node %d or %d of %d", q.J, q.K, n)}
			}
		}
		pairs = append(pairs, p.Pairs...)
	}
	if want := max(N, 1); len(seen) != want {
		var missing []int
		for i := 0; i < want; i++ {
			if !seen[i] {
				missing = append(missing, i)
			}
		}
		return nil, &ShardError{fmt.Sprintf("lack shards %v of %d", missing, want)}
	}
	act, err := action(g, tau, tol, precise)
	if err != nil {
		return nil, err
	}
	c := &Certifier{g: g, act: act, tau: tau, tol: tol, norm: norm, eta: act.ErrorBound(), precision: tol / 100, precise: precise, rowsCorrelated: correlated}
	if err := c.checkRange(); err != nil {
		return nil, err
	}
	// The parts' pairs in one order, whatever order the parts came in.
	sortPairs(pairs)
	c.classes = c.merge(pairs)
	return c, nil
}
