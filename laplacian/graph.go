package laplacian

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
)

// Graph is a compact weighted undirected graph in CSR form.
// It is immutable once built and safe for concurrent reads.
//
// Memory: 8(n+1) bytes of row pointers, 4 bytes per stored direction of an
// edge (8|E| in all), 8 more per direction only when some weight is not 1,
// plus 12n bytes of degrees and component labels. Graphs built without keys
// (generators, FromEdges with nil keys) store no key strings at all: keys
// are the decimal indices, materialised only if Keys is called.
type Graph struct {
	n         int
	keys      []string // nil for default (decimal index) keys until Keys is called
	keysOnce  sync.Once
	custom    bool             // keys were supplied by the caller
	index     map[string]int32 // nil for default keys, and until IndexOf when built lazily
	indexOnce sync.Once        // builds index on first use when setKeys was told the keys are distinct
	rowPtr    []int64          // len n+1
	col       []int32          // len 2|E|, sorted within a row
	weight    []float64        // len 2|E|; nil when every weight is 1
	degree    []float64        // weighted degree d_i
	edges     int
	merges    Merges
	maxDeg    float64
	compCnt   int
	comp      []int32 // with compCnt, set on first use by compOnce
	compOnce  sync.Once
	radius    float64 // SignlessRadiusBound, set on first use by radOnce
	radOnce   sync.Once
}

// Edge is an undirected edge between node indices U and V.
type Edge struct {
	U, V   int32
	Weight float64
}

// Sentinel errors for invalid graphs; wrapped with details by the builder.
var (
	ErrEmptyGraph     = errkind.New(errkind.BadInput, "laplacian: empty graph")
	ErrBadWeight      = errkind.New(errkind.BadInput, "laplacian: weight must be positive and finite")
	ErrNodeOutOfRange = errors.New("laplacian: node index out of range")
	ErrDuplicateKey   = errkind.New(errkind.BadInput, "laplacian: duplicate node key")
	ErrDuplicateEdge  = errors.New("laplacian: duplicate edge")
)

// EdgeError reports which edge made a graph invalid, by node key.
type EdgeError struct {
	U, V   string
	Weight float64
	Err    error
}

func (e *EdgeError) Error() string {
	return fmt.Sprintf("%v: edge (%s, %s) weight %v", e.Err, e.U, e.V, e.Weight)
}
func (e *EdgeError) Unwrap() error { return e.Err }

// Options control how FromEdges (and ReadCSV) treat imperfect input. The
// zero value means the defaults.
type Options struct {
	// Duplicates says what a pair given more than once (in either
	// orientation) means. Default DuplicatesMerge: rows of equal weight
	// are one edge, rows of different weights are a *DuplicateError;
	// DuplicatesSum adds them (the multigraph); DuplicatesReject refuses
	// any (ErrDuplicateEdge). Graph.Merges reports what was merged.
	Duplicates DuplicateRule
	// Header says whether ReadCSV's first row is a header (default: decided
	// by its names; see ReadCSV).
	Header csvin.Header
}

// FromEdges builds a graph on len(keys) nodes. keys may be nil, in which
// case node i has key strconv.Itoa(i) and n gives the node count.
// It validates every edge: indices in range, weights positive and finite
// (a zero weight is rejected: drop the edge instead). Errors are
// *EdgeError values naming the offending keys and wrapping one of the
// sentinel errors, or ErrEmptyGraph / ErrDuplicateKey.
// A graph without edges is valid (n isolated nodes, n components).
//
// A self-loop (U == V) is left out, its node kept: a loop adds its weight
// to D and to W alike, so L = D − W is the same without it. Every source
// of graphs (an edge list, Neo4j, a dataset) builds through here, so they
// all follow this one rule; Graph.Merges counts the loops and names one.
// A pair given more than once follows opt.Duplicates (DuplicateRule);
// Graph.Merges says what was merged.
//
// Peak memory beyond the edges slice is about 28n + 8|E| bytes for a
// unit-weight input (duplicates merged or not) and 28n + 24|E| bytes
// otherwise (a unit-weight input whose duplicates are summed becomes
// weighted: summed edges weigh more than 1). Measured at n = 10^6, |E| = 10^7: see TestMemory1e6.
func FromEdges(n int, keys []string, edges []Edge, opt Options) (*Graph, error) {
	return fromEdges(n, keys, nil, false, edges, opt)
}

// fromEdges is FromEdges with an optional prebuilt key index (the CSV
// reader has one already; building a second would double its memory).
// It builds the CSR arrays in phases: validate and count row lengths,
// scatter both directions of every edge, sort each row (finding
// duplicates), merge duplicates, then degrees and components.
func fromEdges(n int, keys []string, index map[string]int32, distinct bool, edges []Edge, opt Options) (*Graph, error) {
	if keys != nil {
		n = len(keys)
	}
	if n <= 0 {
		return nil, ErrEmptyGraph
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("laplacian: %d nodes exceed the int32 index range", n)
	}
	if opt.Duplicates > DuplicatesReject {
		panic(fmt.Sprintf("laplacian: unknown %v", opt.Duplicates))
	}
	g := &Graph{n: n, merges: Merges{Rows: len(edges), Rule: opt.Duplicates.String()}}
	if keys != nil {
		if err := g.setKeys(keys, index, distinct); err != nil {
			return nil, err
		}
	}
	rowPtr, col, w, err := g.buildRows(edges)
	if err != nil {
		return nil, err
	}
	g.merges.Rows -= g.merges.SelfLoops
	dups, err := g.sortRows(rowPtr, col, w, opt.Duplicates == DuplicatesReject)
	if err != nil {
		return nil, err
	}
	if dups {
		if col, w, err = g.mergeDuplicates(rowPtr, col, w, opt.Duplicates); err != nil {
			return nil, err
		}
	}
	g.rowPtr, g.col, g.weight = rowPtr, col, w
	if err := g.setDegrees(); err != nil {
		return nil, err
	}
	g.edges = int(rowPtr[n] / 2)
	return g, nil
}

// setKeys installs the node keys and their index, building the index
// (and refusing duplicate keys) when none is given. With distinct set,
// the caller vouches that the keys are distinct and the index is built
// only if IndexOf is called (reading a CSV numbers its decimal keys
// without a map, and most runs never look a key up).
func (g *Graph) setKeys(keys []string, index map[string]int32, distinct bool) error {
	if distinct {
		g.keys, g.custom = keys, true
		return nil
	}
	if index == nil {
		index = make(map[string]int32, len(keys))
		for i, k := range keys {
			if _, dup := index[k]; dup {
				return fmt.Errorf("%w: %q", ErrDuplicateKey, k)
			}
			index[k] = int32(i)
		}
	}
	g.keys, g.index, g.custom = keys, index, true
	return nil
}

// name is node i's key for error messages, or the raw index when i is out
// of range.
func (g *Graph) name(i int32) string {
	if i >= 0 && int(i) < g.n {
		return g.Key(int(i))
	}
	return strconv.Itoa(int(i))
}

// countRows validates every edge and returns the CSR row pointers of the
// symmetric adjacency (rowPtr[i+1] − rowPtr[i] = deg(i)) and whether every
// weight is 1. Self-loops (of a valid weight) are left out and noted in
// g.merges: a loop of weight w adds w to D_aa and to W_aa, so L = D − W
// is the same without it.
func (g *Graph) countRows(edges []Edge) (rowPtr []int64, unit bool, err error) {
	n := g.n
	rowPtr = make([]int64, n+1)
	unit = true
	for _, e := range edges {
		switch {
		case e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n:
			return nil, false, &EdgeError{g.name(e.U), g.name(e.V), e.Weight, ErrNodeOutOfRange}
		case !(e.Weight > 0) || math.IsInf(e.Weight, 0):
			return nil, false, &EdgeError{g.name(e.U), g.name(e.V), e.Weight, ErrBadWeight}
		case e.U == e.V:
			g.noteSelfLoops(1, e.U)
			continue
		}
		if e.Weight != 1 {
			unit = false
		}
		rowPtr[e.U+1]++
		rowPtr[e.V+1]++
	}
	for i := 0; i < n; i++ {
		rowPtr[i+1] += rowPtr[i]
	}
	return rowPtr, unit, nil
}

// parallelEdges is the fewest edges buildRows splits between goroutines.
const parallelEdges = 1 << 18

// noteSelfLoops records count more self-loops left out of the graph,
// naming the first one's node u when they are the first.
func (g *Graph) noteSelfLoops(count int, u int32) {
	if g.merges.SelfLoops == 0 {
		g.merges.SelfLoopKey = g.name(u)
	}
	g.merges.SelfLoops += count
}

// runCount is what countBuckets found in one run of edges.
type runCount struct {
	c     []int64 // links per bucket
	unit  bool    // every weight is 1
	bad   int     // index of the first bad edge, −1 if none
	loops int     // self-loops, left out
	loop  int     // index of the first of them
}

// countBuckets counts the links of run in each of the buckets of
// bucketRows rows of an n-node graph and whether every weight is 1;
// bad is the index of run's first bad edge (out of range, a weight not
// positive and finite), −1 if none, and the counts stop there.
// Self-loops are counted apart (countRows leaves them out).
func countBuckets(run []Edge, n, buckets int) runCount {
	r := runCount{c: make([]int64, buckets), unit: true, bad: -1}
	for i, e := range run {
		if e.U < 0 || int(e.U) >= n || e.V < 0 || int(e.V) >= n || !(e.Weight > 0) || math.IsInf(e.Weight, 0) {
			r.bad = i
			break
		}
		if e.U == e.V {
			if r.loops == 0 {
				r.loop = i
			}
			r.loops++
			continue
		}
		if e.Weight != 1 {
			r.unit = false
		}
		r.c[e.U/bucketRows]++
		r.c[e.V/bucketRows]++
	}
	return r
}

// buildRows validates the edges and places both directions of each into
// its row (countRows, then scatter). With several cores the rows are
// built in buckets of bucketRows consecutive rows, so that no pass writes
// at random over the whole graph: the edge list is cut into one run per
// goroutine; each run counts its links per bucket, then copies them into
// its share of each bucket (buckets in row order, runs in edge-list order
// within a bucket); each bucket then counts, fills and sorts its own rows
// in a stretch of memory that fits in cache. A row's links come in the
// sequential pass's order before the sort, so the rows are exactly those
// of countRows, scatter and sortRows, and the error reported is that of
// the first bad edge. The rows come out sorted.
func (g *Graph) buildRows(edges []Edge) (rowPtr []int64, col []int32, w []float64, err error) {
	workers := min(runtime.GOMAXPROCS(0), len(edges)/parallelEdges)
	if workers <= 1 {
		rowPtr, unit, err := g.countRows(edges)
		if err != nil {
			return nil, nil, nil, err
		}
		col, w := scatter(rowPtr, edges, unit)
		return rowPtr, col, w, nil
	}
	n := g.n
	buckets := (n + bucketRows - 1) / bucketRows
	runs := make([][]Edge, workers)
	for k := range runs {
		runs[k] = edges[k*len(edges)/workers : (k+1)*len(edges)/workers]
	}
	counts := make([]runCount, workers)
	parallelRuns(workers, func(k int) {
		counts[k] = countBuckets(runs[k], n, buckets)
	})
	unit := true
	count := make([][]int64, workers) // links of each bucket in each run, then where the run's next one goes
	for k, rc := range counts {
		if rc.bad >= 0 {
			_, _, err := g.countRows(runs[k][rc.bad : rc.bad+1]) // the sequential check's error
			return nil, nil, nil, err
		}
		unit = unit && rc.unit
		count[k] = rc.c
	}
	for k, rc := range counts {
		if rc.loops > 0 {
			g.noteSelfLoops(rc.loops, runs[k][rc.loop].U)
		}
	}
	start := make([]int64, buckets+1) // bucket b's links are [start[b], start[b+1])
	at := int64(0)
	for b := 0; b < buckets; b++ {
		start[b] = at
		for k := range count {
			c := count[k][b]
			count[k][b] = at
			at += c
		}
	}
	start[buckets] = at
	// The links, bucket by bucket: row within the bucket, column, weight.
	brow, bcol := make([]uint16, at), make([]int32, at)
	var bw []float64
	if !unit {
		bw = make([]float64, at)
	}
	parallelRuns(workers, func(k int) {
		next := count[k]
		for _, e := range runs[k] {
			if e.U == e.V {
				continue // a self-loop, left out (countRows)
			}
			p := next[e.U/bucketRows]
			next[e.U/bucketRows]++
			brow[p], bcol[p] = uint16(e.U%bucketRows), e.V
			q := next[e.V/bucketRows]
			next[e.V/bucketRows]++
			brow[q], bcol[q] = uint16(e.V%bucketRows), e.U
			if bw != nil {
				bw[p], bw[q] = e.Weight, e.Weight
			}
		}
	})
	rowPtr = make([]int64, n+1)
	col = make([]int32, at)
	if !unit {
		w = make([]float64, at)
	}
	var nextBucket atomic.Int64
	parallelRuns(workers, func(int) {
		local := make([]int64, bucketRows+1)
		for {
			b := int(nextBucket.Add(1) - 1)
			if b >= buckets {
				return
			}
			fillBucket(b, start[b], start[b+1], min(bucketRows, n-b*bucketRows), local, brow, bcol, bw, rowPtr, col, w)
		}
	})
	return rowPtr, col, w, nil
}

// bucketRows is the number of consecutive rows buildRows fills together:
// at 20 links a row, their links take about a third of a MiB.
const bucketRows = 1 << 12

// fillBucket places the links lo..hi−1 of bucket b (rows b·bucketRows on,
// rows of them) into their rows, in order, sets the rows' pointers and
// sorts the rows. local is scratch of bucketRows+1 entries.
func fillBucket(b int, lo, hi int64, rows int, local []int64, brow []uint16, bcol []int32, bw []float64, rowPtr []int64, col []int32, w []float64) {
	local = local[:rows+1]
	clear(local)
	for _, r := range brow[lo:hi] {
		local[r+1]++
	}
	first := b * bucketRows
	for r := 0; r < rows; r++ {
		local[r+1] += local[r]
		rowPtr[first+r+1] = lo + local[r+1]
	}
	for p := lo; p < hi; p++ {
		r := brow[p]
		q := lo + local[r]
		local[r]++
		col[q] = bcol[p]
		if w != nil {
			w[q] = bw[p]
		}
	}
	a := lo // rowPtr[first] is the bucket before's to write
	for r := first; r < first+rows; r++ {
		z := rowPtr[r+1]
		if w == nil {
			sortCols(col[a:z])
		} else {
			sortRow(col[a:z], w[a:z])
		}
		a = z
	}
}

// parallelRuns calls fn(k) for k in 0..workers−1, each on its own
// goroutine, and waits for them.
func parallelRuns(workers int, fn func(k int)) {
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(k)
		}()
	}
	wg.Wait()
}

// scatter places both directions of every edge into its rows. Weights are
// stored only when some weight differs from 1 (w is nil otherwise).
func scatter(rowPtr []int64, edges []Edge, unit bool) (col []int32, w []float64) {
	n := len(rowPtr) - 1
	nnz := rowPtr[n]
	col = make([]int32, nnz)
	if !unit {
		w = make([]float64, nnz)
	}
	next := make([]int64, n)
	copy(next, rowPtr[:n])
	for _, e := range edges {
		if e.U == e.V {
			continue // a self-loop, left out (countRows)
		}
		pu, pv := next[e.U], next[e.V]
		col[pu], col[pv] = e.V, e.U
		if w != nil {
			w[pu], w[pv] = e.Weight, e.Weight
		}
		next[e.U]++
		next[e.V]++
	}
	return col, w
}

// sortRows sorts every row by column and reports whether any row repeats
// a column (a duplicate edge); with reject, the first one (in row order)
// is an error. Rows are sorted in parallel, each by one goroutine.
func (g *Graph) sortRows(rowPtr []int64, col []int32, w []float64, reject bool) (dups bool, err error) {
	var mu sync.Mutex
	first := g.n // the lowest row holding a duplicate
	splitRows(rowPtr, runtime.GOMAXPROCS(0), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a, b := rowPtr[i], rowPtr[i+1]
			if w == nil {
				sortCols(col[a:b])
			} else {
				sortRow(col[a:b], w[a:b])
			}
			if dupAt(col[a:b]) >= 0 { // first is read under the lock only: other goroutines write it
				mu.Lock()
				first = min(first, i)
				mu.Unlock()
			}
		}
	})
	if first == g.n {
		return false, nil
	}
	if reject {
		a := rowPtr[first]
		p := a + int64(dupAt(col[a:rowPtr[first+1]]))
		wt := 1.0
		if w != nil {
			wt = w[p]
		}
		return false, &EdgeError{g.name(int32(first)), g.name(col[p]), wt, ErrDuplicateEdge}
	}
	return true, nil
}

// dupAt returns the first position of a sorted row that repeats the
// column before it, or −1.
func dupAt(row []int32) int {
	for p := 1; p < len(row); p++ {
		if row[p] == row[p-1] {
			return p
		}
	}
	return -1
}

// mergeDuplicates merges repeated columns of each sorted row in place
// under rule, rewrites rowPtr as the rows shrink and records the merges.
// DuplicatesMerge keeps one copy of rows of equal weight (a unit-weight
// graph stays unweighted) and refuses rows of different weights;
// DuplicatesSum adds the weights (a unit-weight graph becomes weighted).
func (g *Graph) mergeDuplicates(rowPtr []int64, col []int32, w []float64, rule DuplicateRule) ([]int32, []float64, error) {
	nnz := rowPtr[g.n]
	if w == nil && rule == DuplicatesSum {
		w = make([]float64, nnz)
		for p := range w {
			w[p] = 1
		}
	}
	out, lo := int64(0), int64(0)
	merged, pairs := 0, 0
	into := int64(-1) // the last position merged into
	for i := 0; i < g.n; i++ {
		hi := rowPtr[i+1]
		start := out
		for p := lo; p < hi; p++ {
			if out > start && col[out-1] == col[p] {
				merged++
				if into != out-1 { // the pair's first repeat
					pairs++
					into = out - 1
				}
				if w != nil {
					switch {
					case rule == DuplicatesSum:
						w[out-1] += w[p]
						if math.IsInf(w[out-1], 0) {
							return nil, nil, &EdgeError{g.name(int32(i)), g.name(col[p]), w[out-1],
								fmt.Errorf("%w: merged duplicate weights overflow", ErrBadWeight)}
						}
					case w[out-1] != w[p]:
						return nil, nil, &DuplicateError{U: g.name(int32(i)), V: g.name(col[p]), W1: w[out-1], W2: w[p]}
					}
				}
				continue
			}
			col[out] = col[p]
			if w != nil {
				w[out] = w[p]
			}
			out++
		}
		rowPtr[i+1] = out
		lo = hi
	}
	if out < nnz-nnz/4 { // release the slack when many were merged
		col = slices.Clone(col[:out])
		if w != nil {
			w = slices.Clone(w[:out])
		}
	}
	g.merges.Merged, g.merges.Pairs = merged/2, pairs/2
	if w != nil {
		w = w[:out:out]
	}
	return col[:out:out], w, nil
}

// setDegrees computes the weighted degrees and their maximum, refusing a
// degree that overflows.
func (g *Graph) setDegrees() error {
	g.degree = make([]float64, g.n)
	for i := 0; i < g.n; i++ {
		lo, hi := g.rowPtr[i], g.rowPtr[i+1]
		d := float64(hi - lo)
		if g.weight != nil {
			d = 0
			for _, x := range g.weight[lo:hi] {
				d += x
			}
		}
		if math.IsInf(d, 0) {
			return fmt.Errorf("%w: weighted degree of node %q overflows", ErrBadWeight, g.Key(i))
		}
		g.degree[i] = d
		g.maxDeg = math.Max(g.maxDeg, d)
	}
	return nil
}

// sortCols sorts a row without weights: rows of up to 32 links (most, in
// sparse graphs) by insertion, about 40% faster there than slices.Sort.
func sortCols(c []int32) {
	if len(c) > 32 {
		slices.Sort(c)
		return
	}
	for i := 1; i < len(c); i++ {
		ci := c[i]
		j := i
		for ; j > 0 && c[j-1] > ci; j-- {
			c[j] = c[j-1]
		}
		c[j] = ci
	}
}

// sortRow sorts a row by column, carrying the weights along: insertion
// sort for the short rows typical of sparse graphs, a sort of packed
// (column, position) keys otherwise. Equal columns (parallel edges, merged
// later) keep their order.
func sortRow(c []int32, w []float64) {
	if len(c) <= 24 {
		for i := 1; i < len(c); i++ {
			ci, wi := c[i], w[i]
			j := i
			for ; j > 0 && c[j-1] > ci; j-- {
				c[j], w[j] = c[j-1], w[j-1]
			}
			c[j], w[j] = ci, wi
		}
		return
	}
	if slices.IsSorted(c) {
		return
	}
	// Longer rows: sort (column, position) pairs packed in one uint64,
	// then gather the weights; pdqsort on plain integers is several times
	// faster than sort.Sort through an interface.
	keys := make([]uint64, len(c))
	for i, x := range c {
		keys[i] = uint64(uint32(x))<<32 | uint64(i)
	}
	slices.Sort(keys)
	ws := make([]float64, len(w))
	for i, k := range keys {
		c[i] = int32(uint32(k >> 32))
		ws[i] = w[uint32(k)]
	}
	copy(w, ws)
}

// components labels connected components by graph search.
func components(g *Graph) ([]int32, int) {
	n := g.N()
	label := make([]int32, n)
	for i := range label {
		label[i] = -1
	}
	stack := make([]int32, 0, 64)
	count := int32(0)
	for s := 0; s < n; s++ {
		if label[s] >= 0 {
			continue
		}
		label[s] = count
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.col[g.rowPtr[u]:g.rowPtr[u+1]] {
				if label[v] < 0 {
					label[v] = count
					stack = append(stack, v)
				}
			}
		}
		count++
	}
	return label, int(count)
}

// N returns the number of nodes.
func (g *Graph) N() int { return g.n }

// CSR returns the stored adjacency, for kernels that walk it directly: row
// i's neighbours are col[rowPtr[i]:rowPtr[i+1]], sorted, each in [0, N()),
// with weights weight[rowPtr[i]:rowPtr[i+1]] (weight is nil when every
// weight is 1). The slices are the graph's own: read them, never write.
func (g *Graph) CSR() (rowPtr []int64, col []int32, weight []float64) {
	return g.rowPtr, g.col, g.weight
}

// NumEdges returns the number of undirected edges after merging duplicates.
func (g *Graph) NumEdges() int { return g.edges }

// DuplicatesMerged returns how many repeated edges were merged into others.
func (g *Graph) DuplicatesMerged() int { return g.merges.Merged }

// Merges says how the edges the graph was built from became its edges:
// how many were given, how many pairs repeated, how many rows were merged
// and by which rule.
func (g *Graph) Merges() Merges { return g.merges }

// Key returns the key of node i.
func (g *Graph) Key(i int) string {
	if g.custom {
		return g.keys[i]
	}
	if i < 0 || i >= g.n {
		panic("laplacian: node index out of range")
	}
	return strconv.Itoa(i)
}

// Keys returns the node keys in index order. The slice must not be
// modified. For graphs built without keys it is materialised on first use.
func (g *Graph) Keys() []string {
	if g.custom {
		return g.keys
	}
	g.keysOnce.Do(func() {
		keys := make([]string, g.n)
		for i := range keys {
			keys[i] = strconv.Itoa(i)
		}
		g.keys = keys
	})
	return g.keys
}

// IndexOf returns the index of the node with the given key.
func (g *Graph) IndexOf(key string) (int, bool) {
	if g.custom {
		g.indexOnce.Do(func() {
			if g.index == nil {
				g.index = make(map[string]int32, len(g.keys))
				for i, k := range g.keys {
					g.index[k] = int32(i)
				}
			}
		})
		i, ok := g.index[key]
		return int(i), ok
	}
	i, err := strconv.Atoi(key)
	if err != nil || i < 0 || i >= g.n || strconv.Itoa(i) != key {
		return 0, false
	}
	return i, true
}

// Degree returns the weighted degree d_i = Σ_j w_ij.
func (g *Graph) Degree(i int) float64 { return g.degree[i] }

// Degrees returns all weighted degrees. The slice must not be modified.
func (g *Graph) Degrees() []float64 { return g.degree }

// MaxDegree returns max_i d_i.
func (g *Graph) MaxDegree() float64 { return g.maxDeg }

// Unweighted reports whether every edge has weight 1.
func (g *Graph) Unweighted() bool { return g.weight == nil }

// Neighbors returns the neighbour indices of node i and their weights
// (weights is nil for an unweighted graph). The slices must not be modified.
func (g *Graph) Neighbors(i int) (cols []int32, weights []float64) {
	lo, hi := g.rowPtr[i], g.rowPtr[i+1]
	if g.weight == nil {
		return g.col[lo:hi], nil
	}
	return g.col[lo:hi], g.weight[lo:hi]
}

// find returns the CSR position of j in row i, or -1.
func (g *Graph) find(i, j int) int64 {
	lo, hi := g.rowPtr[i], g.rowPtr[i+1]
	cols := g.col[lo:hi]
	k, ok := slices.BinarySearch(cols, int32(j))
	if !ok {
		return -1
	}
	return lo + int64(k)
}

// EdgeWeight returns w_ij, or 0 when i and j are not adjacent.
func (g *Graph) EdgeWeight(i, j int) float64 {
	p := g.find(i, j)
	if p < 0 {
		return 0
	}
	if g.weight == nil {
		return 1
	}
	return g.weight[p]
}

// ForEachEdge calls fn once per undirected edge with i < j, in increasing
// (i, j) order.
func (g *Graph) ForEachEdge(fn func(i, j int, w float64)) {
	for i := 0; i < g.N(); i++ {
		for p := g.rowPtr[i]; p < g.rowPtr[i+1]; p++ {
			if j := int(g.col[p]); i < j {
				w := 1.0
				if g.weight != nil {
					w = g.weight[p]
				}
				fn(i, j, w)
			}
		}
	}
}

// Components returns the number of connected components and each node's
// component label in 0..count-1 (labels in order of each component's
// smallest node index). The slice must not be modified.
// They are found on the first call (a sequential walk of every edge that
// most runs, communities among them, never need).
func (g *Graph) Components() (count int, label []int32) {
	g.compOnce.Do(func() { g.comp, g.compCnt = components(g) })
	return g.compCnt, g.comp
}

// Connected reports whether the graph has exactly one connected component.
func (g *Graph) Connected() bool {
	count, _ := g.Components()
	return count == 1
}

// Bytes returns the memory held by the graph's arrays, excluding keys.
func (g *Graph) Bytes() int64 {
	return int64(8*len(g.rowPtr) + 4*len(g.col) + 8*len(g.weight) + 8*len(g.degree) + 4*g.n)
}
