package sensitivity

import (
	"math"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// The Gram scheme computes every column of G = exp(−2τL) with expm's
// certified Chebyshev action, 32 columns a pass (its wide kernels), and
// reads each edge's term from three of their entries:
//
//	q_ij = ‖exp(−τL)(e_i − e_j)‖² = G_ii + G_jj − 2G_ij.
//
// With ‖ĝ_j − G·e_j‖₂ ≤ η (the action's ErrorBound, rounding included, for
// the unit vector e_j) every entry of a computed column is within η of
// G's, so the computed q̂_ij = d̂_i + d̂_j − 2ĉ_ij, itself rounded by at most
// 3u·(|d̂_i| + |d̂_j| + 2|ĉ_ij|) ≤ 12u (every entry of G lies in [0, 1], up
// to η), is within 4η + 12u of q_ij (docs/derivations.md §2.13). Δ2 is
// bracketed by the largest q̂ ± that margin: exact to ~4η/Δ2², where the
// per-edge schemes stop when their brackets close. It costs one action on
// all n columns, ⌈n/32⌉·32·K·(2|E| + n) kernel steps with K the degree at
// 2τ, whatever the edges — no cheap bounds, no refinement order, no pilot
// — so it is the scheme of choice on graphs of a few 10⁴ nodes without
// hubs, where the per-edge Krylov recurrences are long.

// gramBlock is how many columns one action computes.
const gramBlock = 32

// gramNanosPerStep is the kernel's time per column-step on the 2-core
// reference machine, both cores working (expm's AVX2 32-column kernel:
// 0.10–0.12 ns measured by the answer audit's pass on LFR 2·10⁴), the
// Gram scheme's cost model.
const gramNanosPerStep = 0.12

// gramAction is exp(−2τL) at tol (or twice the rounding floor, when tol
// is finer than the recurrence can be certified to: the slack then says
// how exact Δ2 is), the action the scheme applies.
func gramAction(g *laplacian.Graph, tau, tol float64) (*expm.Chebyshev, error) {
	return expm.NewChebyshevOrFloor(g.Laplacian(), 2*tau, tol)
}

// gramCost models the Gram scheme on g: seconds on the reference machine
// and bytes (the graph, two blocks of 32 columns and the action's scratch,
// a diagonal and an entry per edge). ok is false when the action cannot
// be built at tol.
func gramCost(g *laplacian.Graph, tau, tol float64) (seconds float64, bytes int64, ok bool) {
	act, err := gramAction(g, tau, tol)
	if err != nil {
		return 0, 0, false
	}
	n, m := float64(g.N()), float64(g.NumEdges())
	cols := math.Ceil(n/gramBlock) * gramBlock
	steps := cols * float64(act.Degree()) * (2*m + n)
	return steps * gramNanosPerStep * 1e-9, g.Bytes() + int64(8*(4*gramBlock*n+n+m)), true
}

// gramGraphSensitivity is Δ2 by the Gram scheme (see above). ok is false
// when stop fired before every column was computed.
func gramGraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt Options, s Result, stop func() bool) (Result, bool) {
	act, err := gramAction(g, tau, opt.Tol)
	if err != nil {
		return s, false
	}
	n := g.N()
	eta := act.ErrorBound()
	// Each edge i < j is read from column i: its other end and its slot.
	start := make([]int, n+1)
	var other []int32
	g.ForEachEdge(func(i, j int, _ float64) {
		start[i+1]++
		other = append(other, int32(j))
	})
	for i := range n {
		start[i+1] += start[i]
	}
	diag := make([]float64, n)
	cross := make([]float64, len(other))
	x := make([]float64, n*gramBlock)
	y := make([]float64, n*gramBlock)
	blocks := (n + gramBlock - 1) / gramBlock
	t0 := time.Now()
	for blk := range blocks {
		if stop() {
			return s, false
		}
		lo := blk * gramBlock
		b := min(gramBlock, n-lo)
		xs, ys := x[:n*b], y[:n*b]
		clear(xs)
		for c := range b {
			xs[(lo+c)*b+c] = 1
		}
		act.Apply(ys, xs, b)
		for c := range b {
			j := lo + c
			diag[j] = ys[j*b+c]
			for p := start[j]; p < start[j+1]; p++ {
				cross[p] = ys[int(other[p])*b+c]
			}
		}
		if opt.Progress != nil {
			opt.Progress(blk+1, blocks)
		}
		if opt.Status != nil && blk+1 < blocks {
			// Until every column is in, only ‖exp(−τL)(e_i − e_j)‖ ≤ √2 is proven.
			done := min(start[lo+b], len(other))
			opt.Status(Interim{Edges: g.NumEdges(), EdgesCertified: done, Delta2: roundUpDelta(alpha * math.Sqrt2),
				Elapsed: time.Since(t0), ETA: remainingTime(time.Since(t0), blk+1, blocks-blk-1)})
		}
	}
	best, bi, bj := math.Inf(-1), -1, -1
	for i := range n {
		for p := start[i]; p < start[i+1]; p++ {
			j := int(other[p])
			if q := diag[i] + diag[j] - 2*cross[p]; q > best {
				best, bi, bj = q, i, j
			}
		}
	}
	margin := (4*eta + 12*roundoffU) * roundUp
	qUp := (best + margin) * roundUp
	qLo := math.Max(0, (best-margin)*roundDown)
	s.Delta2 = roundUpDelta(alpha * math.Sqrt(qUp) * (1 + roundoffU))
	lower := roundDownDelta(alpha * math.Sqrt(qLo) * (1 - roundoffU))
	s.Slack = math.Max(0, s.Delta2-lower)
	s.Edge = [2]int{bi, bj}
	s.Exact, s.Method, s.Kappa2 = true, "gram-columns", math.NaN()
	return s, true
}
