package recovery

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// emdScale is the integer resolution of the graph EMD: supplies are
// rounded to multiples of 2⁻⁵⁰ (see EMDGraph).
const emdScale = 1 << 50

// UnbalancedError reports a connected component in which the two
// normalised vectors carry different mass: no transport plan exists.
type UnbalancedError struct {
	Component int     // component label (laplacian.Graph.Components)
	P, Q      float64 // normalised mass of p and q in it
}

func (e *UnbalancedError) Error() string {
	return fmt.Sprintf("recovery: emd undefined: component %d holds mass %.6g of p but %.6g of q", e.Component, e.P, e.Q)
}

// EMDGraph is the earth mover's distance between p/‖p‖₁ and q/‖q‖₁ under
// the hop metric of g (edge weights are ignored: every edge costs 1). By
// the Beckmann (edge-flow) form of Wasserstein-1 on a graph it is
//
//	min Σ_{edges} |x_e|  s.t.  divergence(x) = p − q,
//
// an uncapacitated min-cost flow on the 2|E| edge orientations — no
// all-pairs distance matrix. It is solved exactly by the primal–dual
// successive-shortest-path method (Ahuja, Magnanti & Orlin, Network Flows,
// §9.8): Dijkstra with Dial's buckets on reduced costs (integer, so
// buckets suffice), then a Dinic blocking flow on the zero-reduced-cost
// subgraph, until every excess is routed. The number of phases is at most
// the largest hop distance that mass has to travel.
//
// Supplies are rounded to integer multiples of 2⁻⁵⁰ (per component, with
// the rounding residue put on the largest entry so each component
// balances exactly) and the flow is exact integer arithmetic. The result
// differs from the EMD of the unrounded vectors by at most
// Σ_i |rounding_i| · diameter ≤ n·2⁻⁵⁰·diameter.
//
// Mass must balance in every connected component (an *UnbalancedError
// otherwise, with a 1e-9 tolerance before rounding); vectors without mass
// give ErrZeroMass. It panics if len(p) or len(q) differs from g.N().
func EMDGraph(g *laplacian.Graph, p, q []float64) (float64, error) {
	n := g.N()
	if len(p) != n || len(q) != n {
		panic("recovery: EMDGraph length mismatch")
	}
	pn, err := normalise(p, "p")
	if err != nil {
		return 0, err
	}
	qn, err := normalise(q, "q")
	if err != nil {
		return 0, err
	}
	ncomp, label := g.Components()
	pc := make([]float64, ncomp)
	qc := make([]float64, ncomp)
	for i := 0; i < n; i++ {
		pc[label[i]] += pn[i]
		qc[label[i]] += qn[i]
	}
	for c := 0; c < ncomp; c++ {
		if math.Abs(pc[c]-qc[c]) > 1e-9 {
			return 0, &UnbalancedError{Component: c, P: pc[c], Q: qc[c]}
		}
	}
	// Integer supplies, balanced per component.
	b := make([]int64, n)
	sum := make([]int64, ncomp)
	big := make([]int, ncomp)
	for c := range big {
		big[c] = -1
	}
	for i := 0; i < n; i++ {
		b[i] = int64(math.Round(pn[i]*emdScale)) - int64(math.Round(qn[i]*emdScale))
		c := label[i]
		sum[c] += b[i]
		if big[c] < 0 || abs64(b[i]) > abs64(b[big[c]]) {
			big[c] = i
		}
	}
	for c := 0; c < ncomp; c++ {
		b[big[c]] -= sum[c]
	}
	f := newFlowSolver(g, b)
	cost := f.solve()
	return float64(cost) / emdScale, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// flowSolver holds the net flow x_p on every half-edge p = (u→v) of the
// CSR (x of the opposite half-edge is −x_p). The residual arc u→v costs
// −1 with capacity −x_p when x_p < 0 (cancelling flow v→u), else +1 with
// unbounded capacity.
type flowSolver struct {
	n      int
	rowPtr []int64
	col    []int32
	rev    []int64 // index of the opposite half-edge
	x      []int64
	excess []int64 // remaining supply (>0) or demand (<0)
	pi     []int64 // potentials
	dist   []int64
	level  []int32
	it     []int64
}

func newFlowSolver(g *laplacian.Graph, b []int64) *flowSolver {
	n := g.N()
	s := &flowSolver{n: n, excess: b}
	s.rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		s.rowPtr[i+1] = s.rowPtr[i] + int64(len(c))
	}
	s.col = make([]int32, s.rowPtr[n])
	for i := 0; i < n; i++ {
		c, _ := g.Neighbors(i)
		copy(s.col[s.rowPtr[i]:], c)
	}
	s.rev = make([]int64, len(s.col))
	for u := 0; u < n; u++ {
		for p := s.rowPtr[u]; p < s.rowPtr[u+1]; p++ {
			v := int(s.col[p])
			// Rows are sorted: binary search u in row v.
			lo, hi := s.rowPtr[v], s.rowPtr[v+1]
			for lo < hi {
				mid := (lo + hi) / 2
				if int(s.col[mid]) < u {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			s.rev[p] = lo
		}
	}
	s.x = make([]int64, len(s.col))
	s.pi = make([]int64, n)
	s.dist = make([]int64, n)
	s.level = make([]int32, n)
	s.it = make([]int64, n)
	return s
}

func (s *flowSolver) arcCost(p int64) int64 {
	if s.x[p] < 0 {
		return -1
	}
	return 1
}

func (s *flowSolver) reduced(u int, p int64) int64 {
	return s.arcCost(p) + s.pi[u] - s.pi[s.col[p]]
}

const inf64 = math.MaxInt64 / 4

func (s *flowSolver) solve() int64 {
	n := s.n
	for {
		remaining := false
		for i := 0; i < n; i++ {
			if s.excess[i] > 0 {
				remaining = true
				break
			}
		}
		if !remaining {
			break
		}
		D := s.dijkstra()
		if D >= inf64 {
			// Cannot happen for balanced components.
			panic("recovery: emd flow found no path to a deficit")
		}
		for i := 0; i < n; i++ {
			d := s.dist[i]
			if d > D {
				d = D
			}
			s.pi[i] += d
		}
		for s.bfs() {
			for i := 0; i < n; i++ {
				s.it[i] = s.rowPtr[i]
			}
			for i := 0; i < n; i++ {
				if s.excess[i] > 0 {
					got := s.dfs(i, s.excess[i])
					s.excess[i] -= got
				}
			}
		}
	}
	var cost int64
	for p := range s.x {
		if s.x[p] > 0 {
			cost += s.x[p]
		}
	}
	return cost
}

// dijkstra computes reduced-cost distances from all excess nodes with a
// bucket queue and returns the distance to the nearest deficit node.
func (s *flowSolver) dijkstra() int64 {
	n := s.n
	for i := range s.dist {
		s.dist[i] = inf64
	}
	var buckets [][]int32
	push := func(v int32, d int64) {
		for int64(len(buckets)) <= d {
			buckets = append(buckets, nil)
		}
		buckets[d] = append(buckets[d], v)
	}
	for i := 0; i < n; i++ {
		if s.excess[i] > 0 {
			s.dist[i] = 0
			push(int32(i), 0)
		}
	}
	D := int64(inf64)
	for d := int64(0); d < int64(len(buckets)); d++ {
		if d > D {
			break
		}
		for k := 0; k < len(buckets[d]); k++ {
			u := int(buckets[d][k])
			if s.dist[u] != d {
				continue
			}
			if s.excess[u] < 0 && d < D {
				D = d
			}
			for p := s.rowPtr[u]; p < s.rowPtr[u+1]; p++ {
				v := s.col[p]
				nd := d + s.reduced(u, p)
				if nd < s.dist[v] {
					s.dist[v] = nd
					push(v, nd)
				}
			}
		}
		buckets[d] = nil
	}
	return D
}

// bfs builds Dinic levels over admissible arcs (reduced cost 0) from all
// excess nodes; it reports whether a deficit node is reachable.
func (s *flowSolver) bfs() bool {
	n := s.n
	queue := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		s.level[i] = -1
		if s.excess[i] > 0 {
			s.level[i] = 0
			queue = append(queue, int32(i))
		}
	}
	found := false
	for h := 0; h < len(queue); h++ {
		u := int(queue[h])
		if s.excess[u] < 0 {
			found = true
		}
		for p := s.rowPtr[u]; p < s.rowPtr[u+1]; p++ {
			v := s.col[p]
			if s.level[v] < 0 && s.reduced(u, p) == 0 {
				s.level[v] = s.level[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return found
}

// dfs pushes up to limit units from u along level-increasing admissible
// arcs into deficit nodes and returns the amount pushed.
func (s *flowSolver) dfs(u int, limit int64) int64 {
	pushed := int64(0)
	if s.excess[u] < 0 {
		take := min(limit, -s.excess[u])
		s.excess[u] += take
		pushed += take
		limit -= take
		if limit == 0 {
			return pushed
		}
	}
	for ; s.it[u] < s.rowPtr[u+1]; s.it[u]++ {
		p := s.it[u]
		v := int(s.col[p])
		if s.level[v] != s.level[u]+1 || s.reduced(u, p) != 0 {
			continue
		}
		lim := limit
		if s.x[p] < 0 && -s.x[p] < lim {
			lim = -s.x[p]
		}
		got := s.dfs(v, lim)
		if got > 0 {
			s.x[p] += got
			s.x[s.rev[p]] -= got
			pushed += got
			limit -= got
			if limit == 0 {
				return pushed
			}
		}
	}
	return pushed
}
