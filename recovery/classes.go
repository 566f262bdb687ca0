package recovery

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// SourceClasses partitions the nodes into classes of sources that no
// reading inside the Certifier's model can tell apart, and records the
// audit that found them.
type SourceClasses struct {
	// Class[j] is node j's class, numbered by lowest member (0 … Count−1).
	Class []int `json:"class"`
	Count int   `json:"count"`
	// Merged is the number of nodes in classes of two or more.
	Merged int `json:"merged"`
	// SourcesChecked sources' noiseless readings were fitted (every node,
	// from the pass's correlations); Refused of them were refused and
	// Misplaced fitted outside the source's class (0 and 0 when sound).
	SourcesChecked int `json:"sourcesChecked"`
	Refused        int `json:"refused"`
	Misplaced      int `json:"misplaced"`
	// SourcesRefitted sources were fitted again by Fit itself (the real
	// recovery, end to end, on an evenly spread sample); RefitFailures of
	// them were refused or misplaced.
	SourcesRefitted int `json:"sourcesRefitted"`
	RefitFailures   int `json:"refitFailures"`
	// MergeCos is the cosine above which two directions are merged.
	MergeCos float64 `json:"mergeCos"`
}

// Pair is a pair of nodes that may be confusable: C = ⟨P·â_J, P·â_K⟩ as
// computed in row J of the pass.
type Pair struct {
	J, K int32
	C    float64
}

// maxPairsPerNode bounds the candidate pairs the pass keeps (a τ at which
// most pairs of nodes are near-parallel is refused instead).
const maxPairsPerNode = 256

// candidateCos is a cosine no confusable pair can be below, for any error
// the certifier accepts (e ≤ 2·T/100 + T/10, checkRange): the pass keeps
// every pair above it, before the norms of both nodes are known.
func candidateCos(tol float64) float64 {
	eMax := 2*tol/50 + tol/10
	return math.Cos(math.Asin(tol)+math.Acos(math.Max(-1, math.Sqrt(1-tol*tol)-2*eMax))) - 2*eMax
}

// pass computes, for every node j of the given blocks, the column â_j,
// N_j = ‖P·â_j‖ (into norm) and the correlations c_jk = (exp(−τL)·P·â_j)_k
// = ⟨P·â_j, P·â_k⟩ + error, and keeps the pairs with c_jk ≥ cmin·N_j²,
// cmin = candidateCos(T). Every confusable pair is kept: cos_jk ≥ cmin
// means c_jk ≥ cmin·N_j·N_k, which is ≥ cmin·N_j² for the member of the
// pair with the smaller norm — so one of the two rows keeps it, without
// the other's norm. The pairs come sorted (by J, then K), whichever
// goroutine computed them.
//
// With a checkpoint, the blocks it holds for this action are taken from it
// (not computed) and every block computed is added to it. With terms, the
// computed blocks' correlations at every edge are kept (EdgeTerms).
func (c *Certifier) pass(ctx context.Context, blocks []int, norm []float64, progress func(done, total int), cp PassCheckpoint, precise bool, terms *EdgeTerms) ([]Pair, error) {
	n := c.g.N()
	total := 0
	for _, blk := range blocks {
		total += min(blockSize, n-blk*blockSize)
	}
	st := &passState{progress: progress, total: total}
	if cp != nil {
		var weak bool
		blocks, st.pairs, st.done, weak = c.resumePass(cp, blocks, norm, precise)
		if progress != nil && st.done > 0 {
			progress(st.done, total)
		}
		if weak && c.mode == passStopWeak {
			return nil, &weakSourceError{}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A block is done once its columns are correlated (at once, or when
	// the batch holding its last one is: queue).
	done := func(blk *pendingBlock) {
		if st.add(blk.b, blk.correlated, blk.pairs) > maxPairsPerNode*n {
			st.setTooMany()
		}
		if cp != nil {
			cp.Add(PassBlock{Tol: c.tol, Precise: precise, Block: blk.lo / blockSize, Norms: slices.Clone(norm[blk.lo : blk.lo+blk.b]), Pairs: blk.pairs})
		}
	}
	_, sparse := c.act.(*expm.Chebyshev)
	batched := sparse && terms == nil
	err := forBlocks(ctx, c.act, n, blocks, func(w *passWorker, lo, b int, cols []float64) {
		P := centeredBlock(cols, n, b, lo, norm, w)
		switch {
		case c.mode == passStopWeak && c.anyTooWeak(norm[lo:lo+b]):
			st.stop(cancel)
		case c.mode == passNorms:
			st.add(b, 0, nil)
		case batched:
			c.queue(w, P, norm, lo, b, done)
		default:
			done(c.blockRows(w, P, norm, lo, b, terms))
		}
	}, func(w *passWorker) { c.flush(w, norm, done) })
	c.rowsCorrelated = st.correlated
	switch {
	case st.weak:
		return nil, &weakSourceError{}
	case err != nil:
		return nil, err
	case st.tooMany:
		return nil, &ModelRangeError{Tau: c.tau, Tol: c.tol, Reason: "most sources' diffusions are near-parallel at this τ: use a smaller τ"}
	}
	sortPairs(st.pairs)
	return st.pairs, nil
}

// passState is what a pass's goroutines share: the pairs so far and
// the counts, under mu.
type passState struct {
	mu                      sync.Mutex
	pairs                   []Pair
	done, total, correlated int
	tooMany, weak           bool
	progress                func(done, total int)
}

// add records a finished block of b columns, correlated of them
// correlated, with its pairs, and returns the pairs so far.
func (st *passState) add(b, correlated int, local []Pair) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pairs = append(st.pairs, local...)
	st.correlated += correlated
	st.done += b
	if st.progress != nil {
		st.progress(st.done, st.total)
	}
	return len(st.pairs)
}

// setTooMany records that the pass kept too many pairs.
func (st *passState) setTooMany() {
	st.mu.Lock()
	st.tooMany = true
	st.mu.Unlock()
}

// stop ends the pass: a source is too weak for its action.
func (st *passState) stop(cancel func()) {
	st.mu.Lock()
	st.weak = true
	st.mu.Unlock()
	cancel()
}

// blockRows runs the second action (w's) on every centred column of the
// block P (nodes lo … lo+b−1) — a pass filling terms needs every row, and
// a dense action is applied whole (its products need not round alike on
// fewer columns); otherwise the pass queues the columns that can keep a
// pair (queue) — and returns the block with the pairs its rows keep.
func (c *Certifier) blockRows(w *passWorker, P, norm []float64, lo, b int, terms *EdgeTerms) *pendingBlock {
	n := c.g.N()
	cmin := candidateCos(c.tol)
	nodes := make([]int, b)
	for k := range nodes {
		nodes[k] = lo + k
	}
	C := w.buf(bufCorr, n*b)
	correlateWith(w.act, C, P, b, w)
	if terms != nil {
		terms.take(C, lo, b)
	}
	return &pendingBlock{lo: lo, b: b, correlated: b, pairs: c.blockPairs(P, C, norm, nodes, cmin, math.Sqrt(2-2*cmin))}
}

// weakSourceError stops a pass (passStopWeak) at a source too weak for
// its action: the certificate needs the precise one.
type weakSourceError struct{}

func (*weakSourceError) Error() string {
	return "recovery: a source is too weak for the loose action (the pass needs the precise one)"
}

// resumePass takes the blocks cp holds for this action (their norms into
// norm) and returns the blocks left to compute, the pairs held and the
// number of columns done, and whether a block held has a source too weak
// for the action.
func (c *Certifier) resumePass(cp PassCheckpoint, blocks []int, norm []float64, precise bool) (left []int, pairs []Pair, done int, weak bool) {
	n := c.g.N()
	held := map[int]PassBlock{}
	for _, b := range cp.Finished(precise, c.tol) {
		if b.Precise == precise && b.Tol == c.tol && b.check(n) == nil {
			held[b.Block] = b
		}
	}
	for _, blk := range blocks {
		b, ok := held[blk]
		if !ok {
			left = append(left, blk)
			continue
		}
		copy(norm[blk*blockSize:], b.Norms)
		weak = weak || c.anyTooWeak(b.Norms)
		pairs = append(pairs, b.Pairs...)
		done += len(b.Norms)
	}
	return left, pairs, done, weak
}

// centeredBlock returns P, the b columns of cols (n×b, row-major) each
// centred (in w's buffer), and writes their norms to norm[lo:lo+b]: each
// column's numbers are centered's and its sum of squares in row order,
// bit for bit, computed row by row for all columns at once.
func centeredBlock(cols []float64, n, b, lo int, norm []float64, w *passWorker) []float64 {
	P := w.buf(bufCentred, n*b)
	sum, comp, sq := w.acc(b)
	mean := norm[lo : lo+b]
	columnMeans(cols, n, b, sum, comp, mean)
	for i := 0; i < n; i++ {
		row, out := cols[i*b:i*b+b], P[i*b:i*b+b]
		for k, v := range row {
			p := v - mean[k]
			out[k] = p
			sq[k] += p * p
		}
	}
	for k := range mean {
		mean[k] = math.Sqrt(sq[k])
	}
	return P
}

// blockPairs returns the pairs (j, i) of the block's columns j =
// nodes[k] (column k of P and C) whose correlation C[i, k] passes
// c_ji ≥ cmin·N_j² and the self-coordinate test (columnPairs).
func (c *Certifier) blockPairs(P, C, norm []float64, nodes []int, cmin, chord float64) []Pair {
	var local []Pair
	for _, l := range c.columnPairs(P, C, norm, nodes, cmin, chord) {
		local = append(local, l...)
	}
	return local
}

// columnPairs is blockPairs column by column: the pairs of nodes[k] in
// the k-th list.
func (c *Certifier) columnPairs(P, C, norm []float64, nodes []int, cmin, chord float64) [][]Pair {
	n, b := c.g.N(), len(nodes)
	// The self-coordinate bound (below): D_j = u_j(j) − chord, with
	// the computed values' error taken off.
	self := make([]float64, b)
	for k, j := range nodes {
		self[k] = c.selfBound(P[j*b+k], norm[j], chord)
	}
	lists := make([][]Pair, b)
	for i := 0; i < n; i++ {
		row := C[i*b : i*b+b]
		for k, v := range row {
			j := nodes[k]
			if i == j || v < cmin*norm[j]*norm[j] {
				continue
			}
			// A confusable i has ‖u_i − u_j‖ ≤ chord, so in
			// coordinate j, (P·a_j)_i/N_i = u_i(j) ≥ u_j(j) − chord:
			// N_i ≤ (P·a_j)_i/D_j when D_j > 0; and N_i ≥ c_ji/N_j
			// (Cauchy–Schwarz). Both from this row; when they
			// cannot meet, i is no candidate.
			if d := self[k]; d > 0 {
				upper := (P[i*b+k] + 2*c.eta) / d
				lower := (v - 2*c.eta*norm[j]) / norm[j]
				if lower > upper {
					continue
				}
			}
			lists[k] = append(lists[k], Pair{int32(j), int32(i), v})
		}
	}
	return lists
}

// selfBound is D_j = u_j(j) − chord less the computed values' error, for
// the self-coordinate p = (P·â_j)_j and N_j = norm.
func (c *Certifier) selfBound(p, norm, chord float64) float64 {
	return p/norm - chord - 3*c.eta/norm - 1e-12
}

// keepsNothing reports whether column k (node j) of P is proven to keep
// no pair: a column whose every other coordinate p_i is below
// D_j·(cmin·N_j − 2η) − 2η, with D_j ≥ 10⁻³ and cmin·N_j > 4η, keeps none
// whatever its correlations (blockPairs' two tests cannot both pass:
// docs/derivations.md §5.1, "Rows that keep nothing"), so its second
// action is not run (queue) and the pairs are the same. The slack of 1e−9 covers the rounding of
// blockPairs' few operations (each within a relative 2⁻⁵³).
func (c *Certifier) keepsNothing(P []float64, b, k, j int, nj, cmin, chord float64) bool {
	d := c.selfBound(P[j*b+k], nj, chord)
	if !(d >= 1e-3) || !(cmin*nj > 4*c.eta) { // (far from 0: the slack stays relative)
		return false
	}
	limit := d*(cmin*nj-2*c.eta)*(1-1e-9) - 2*c.eta
	n := c.g.N()
	for i := 0; i < n; i++ {
		if i != j && !(P[i*b+k] < limit) {
			return false
		}
	}
	return true
}

// sortPairs orders pairs by J, then K: the merge then reads them in one
// order whichever goroutine or shard computed them.
func sortPairs(pairs []Pair) {
	slices.SortFunc(pairs, func(a, b Pair) int {
		if a.J != b.J {
			return cmp.Compare(a.J, b.J)
		}
		return cmp.Compare(a.K, b.K)
	})
}

// merge builds the classes from the pass's pairs, now that every norm is
// known: j and k are merged when cos_jk = c_jk/(N_j·N_k) is within the
// computed cosines' error of cos(asin(T) + θ_acc) (Certifier). The fit of
// every source's noiseless readings is read off the same pairs: its best
// node is j itself (cos 1) or one of j's pairs (any node fitting better
// has cos_jk ≥ 1 − 2e, above the candidates' bound).
func (c *Certifier) merge(pairs []Pair) *SourceClasses {
	n := c.g.N()
	eMax := 2*c.precision + c.colErr
	thetaT := math.Asin(c.tol)
	thetaAcc := math.Acos(math.Max(-1, math.Sqrt(1-c.tol*c.tol)-2*eMax))
	sc := &SourceClasses{MergeCos: math.Cos(thetaT + thetaAcc), SourcesChecked: n}
	uf := newUnionFind(n)
	best := make([]int, n)
	bestCos := make([]float64, n)
	for j := range best {
		best[j], bestCos[j] = j, 1
	}
	for _, p := range pairs {
		j, k := int(p.J), int(p.K)
		cos := p.C / (c.norm[j] * c.norm[k])
		if cos >= sc.MergeCos-eMax {
			uf.union(j, k)
		}
		for _, e := range [2][2]int{{j, k}, {k, j}} {
			if cos > bestCos[e[0]] {
				best[e[0]], bestCos[e[0]] = e[1], cos
			}
		}
	}
	sc.Class, sc.Count = uf.labels()
	size := make([]int, sc.Count)
	for _, q := range sc.Class {
		size[q]++
	}
	for j, q := range sc.Class {
		if size[q] > 1 {
			sc.Merged++
		}
		if sc.Class[best[j]] != q {
			sc.Misplaced++
		}
	}
	return sc
}

// refitSample is how many sources Classes fits again with Fit itself.
const refitSample = 256

// Classes returns the source classes, after fitting the noiseless
// readings â_j of an evenly spread sample of refitSample sources (every
// source on smaller graphs) with Fit itself — the real recovery, end to
// end — and counting any refused or fitted outside its class.
func (c *Certifier) Classes(ctx context.Context) (*SourceClasses, error) {
	sc := *c.classes
	n := c.g.N()
	step := max(1, n/refitSample)
	var sample []int
	for j := 0; j < n; j += step {
		sample = append(sample, j)
	}
	for lo := 0; lo < len(sample); lo += blockSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := min(blockSize, len(sample)-lo)
		x, cols := make([]float64, n*b), make([]float64, n*b)
		for k := 0; k < b; k++ {
			x[sample[lo+k]*b+k] = 1
		}
		applyWide(c.act, cols, x, b, nil)
		fits, _, errs := c.fitBlock(cols, b)
		for k := 0; k < b; k++ {
			j := sample[lo+k]
			if errs[k] != nil || fits[k].Cos < c.acceptCos(fits[k].Err) || sc.Class[fits[k].Node] != sc.Class[j] {
				sc.RefitFailures++
			}
		}
		sc.SourcesRefitted += b
	}
	return &sc, nil
}

type unionFind struct{ parent []int }

func newUnionFind(n int) *unionFind {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return &unionFind{p}
}

func (u *unionFind) find(i int) int {
	for u.parent[i] != i {
		u.parent[i] = u.parent[u.parent[i]]
		i = u.parent[i]
	}
	return i
}

func (u *unionFind) union(i, j int) {
	a, b := u.find(i), u.find(j)
	if a < b {
		u.parent[b] = a
	} else if b < a {
		u.parent[a] = b
	}
}

// labels numbers the sets by their lowest member.
func (u *unionFind) labels() ([]int, int) {
	id := map[int]int{}
	out := make([]int, len(u.parent))
	for i := range out {
		r := u.find(i)
		q, ok := id[r]
		if !ok {
			q = len(id)
			id[r] = q
		}
		out[i] = q
	}
	return out, len(id)
}

// CertifierState is what a Certifier's pass and audit computed on one
// graph at τ and T: every ‖P·â_j‖ and the classes. RestoreCertifier
// rebuilds the Certifier from it without the pass (a cache).
type CertifierState struct {
	Norms   []float64     `json:"norms"`
	Classes SourceClasses `json:"classes"`
	// Precise: the pass ran the precise action. The norms carry that
	// action's error, so a restored certifier is built on it too: its
	// bounds (checkRange, NoiseBound) are then the fresh one's, not those
	// of a smaller error the norms were never computed to.
	Precise bool `json:"precise,omitempty"`
}

// State returns the certifier's norms and sc (from Classes).
func (c *Certifier) State(sc *SourceClasses) CertifierState {
	return CertifierState{Norms: append([]float64(nil), c.norm...), Classes: *sc, Precise: c.precise}
}

// RestoreCertifier rebuilds the Certifier of g at τ and tol from a stored
// state (the action is rebuilt, the range checks rerun) and fits the
// refit sample again (Classes): its counters are this call's, never the
// state's. The caller verifies that the state was computed on this graph,
// τ and tol, and authenticated.
func RestoreCertifier(ctx context.Context, g *laplacian.Graph, tau, tol float64, st CertifierState) (*Certifier, *SourceClasses, error) {
	if tol == 0 {
		tol = DefaultFitTolerance
	}
	n := g.N()
	if len(st.Norms) != n || len(st.Classes.Class) != n {
		return nil, nil, &ModelRangeError{Tau: tau, Tol: tol, Reason: fmt.Sprintf("the stored state has %d norms and %d classes for %d nodes", len(st.Norms), len(st.Classes.Class), n)}
	}
	act, err := action(g, tau, tol, st.Precise)
	if err != nil {
		return nil, nil, err
	}
	c := &Certifier{g: g, act: act, tau: tau, tol: tol, norm: append([]float64(nil), st.Norms...), eta: act.ErrorBound(), precision: tol / 100, precise: st.Precise}
	if err := c.checkRange(); err != nil {
		return nil, nil, err
	}
	sc := st.Classes
	sc.Class = append([]int(nil), sc.Class...)
	sc.SourcesRefitted, sc.RefitFailures = 0, 0
	c.classes = &sc
	refit, err := c.Classes(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.classes = refit
	return c, refit, nil
}
