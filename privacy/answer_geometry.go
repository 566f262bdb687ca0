package privacy

import (
	"context"
	"fmt"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
)

// MaxAnswerCap is the largest distance cap of a community answer: hop
// distances from a node to a community are stored up to it (larger ones,
// and communities in other components, count as MaxAnswerCap).
const MaxAnswerCap = 16

// CommunityGeometry holds, for every node s of a graph, how many
// communities lie at each hop distance from s:
//
//	D(s, o) = min over nodes v of community o of hops(s, v),
//
// truncated at MaxAnswerCap. D(s, comm(s)) = 0. For adjacent nodes s ~ t,
// |D(s, o) − D(t, o)| ≤ 1 for every o (the distance to a set is
// 1-Lipschitz along edges), and so is any truncation min(D, c): this is
// what the answer mechanism's guarantee rests on.
type CommunityGeometry struct {
	g    *laplacian.Graph
	part []int // canonical community ids 0..k−1
	k    int
	// hist[s*(MaxAnswerCap+1)+d] counts the communities at truncated
	// distance d from node s.
	hist []int32
	// away[e], for the CSR entry e = (s → t), is the smallest D(s, o) over
	// the communities o with D(t, o) = D(s, o) + 1 (MaxAnswerCap when there
	// is none): the move s → t takes the source away from o. With cap c,
	// some output's log-probability drops by ε′ along s → t exactly when
	// away[e] < c, which is what the exact privacy loss needs.
	away []int8
	// calibrations remembers CalibrateAnswer's results (deterministic in
	// the geometry and its arguments; the envelope's take seconds).
	mu           sync.Mutex
	calibrations map[calibrationKey]AnswerCalibration
	// table[s*k+o] is D(s, o), made once by distanceTable (nil until
	// then): every calibration's probabilities and posteriors read it.
	table []int8
}

// NewCommunityGeometry computes the distance histograms with one
// multi-source breadth-first search per community (O(k·(n + m)) time,
// O(n·MaxAnswerCap) memory). part must hold one community id ≥ 0 per node;
// ids need not be contiguous. It stops early when ctx is cancelled.
func NewCommunityGeometry(ctx context.Context, g *laplacian.Graph, part []int) (*CommunityGeometry, error) {
	n := g.N()
	if len(part) != n {
		return nil, &ArgumentError{Func: "NewCommunityGeometry", Param: "partition", Value: len(part),
			Reason: fmt.Sprintf("must have one entry per node (%d)", n)}
	}
	canon, k, err := canonicalIDs(part)
	if err != nil {
		return nil, err
	}
	members := make([][]int32, k)
	for i, c := range canon {
		members[c] = append(members[c], int32(i))
	}
	rowPtr, col, _ := g.CSR()
	cg := &CommunityGeometry{g: g, part: canon, k: k, hist: make([]int32, n*(MaxAnswerCap+1)), away: make([]int8, len(col))}
	for e := range cg.away {
		cg.away[e] = MaxAnswerCap
	}
	dist := make([]int8, n)
	queue := make([]int32, 0, n)
	for c := 0; c < k; c++ {
		if c%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		queue = cg.bfs(members[c], dist, queue[:0])
		for s := 0; s < n; s++ {
			ds := truncated(dist[s])
			cg.hist[s*(MaxAnswerCap+1)+int(ds)]++
			for e := rowPtr[s]; e < rowPtr[s+1]; e++ {
				if truncated(dist[col[e]]) == ds+1 && ds < cg.away[e] {
					cg.away[e] = ds
				}
			}
		}
	}
	return cg, nil
}

// truncated maps the search's "beyond the cap" (−1) to MaxAnswerCap.
func truncated(d int8) int8 {
	if d < 0 {
		return MaxAnswerCap
	}
	return d
}

// canonicalIDs maps community ids to 0..k−1 in order of first appearance.
func canonicalIDs(part []int) ([]int, int, error) {
	canon := make([]int, len(part))
	ids := map[int]int{}
	for i, c := range part {
		if c < 0 {
			return nil, 0, &ArgumentError{Func: "NewCommunityGeometry", Param: "partition", Value: c,
				Reason: fmt.Sprintf("has a negative community id at node %d", i)}
		}
		id, ok := ids[c]
		if !ok {
			id = len(ids)
			ids[c] = id
		}
		canon[i] = id
	}
	return canon, len(ids), nil
}

// bfs fills dist with the hop distance from the sources, truncated at
// MaxAnswerCap (−1 beyond it or unreachable). It returns the queue for reuse.
func (cg *CommunityGeometry) bfs(sources []int32, dist []int8, queue []int32) []int32 {
	for i := range dist {
		dist[i] = -1
	}
	rowPtr, col, _ := cg.g.CSR()
	for _, s := range sources {
		dist[s] = 0
		queue = append(queue, s)
	}
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		du := dist[u]
		if du+1 >= MaxAnswerCap {
			continue
		}
		for _, v := range col[rowPtr[u]:rowPtr[u+1]] {
			if dist[v] < 0 {
				dist[v] = du + 1
				queue = append(queue, v)
			}
		}
	}
	return queue
}

// N returns the node count; K the community count.
func (cg *CommunityGeometry) N() int { return cg.g.N() }

// Graph returns the graph the geometry is on.
func (cg *CommunityGeometry) Graph() *laplacian.Graph { return cg.g }

// K returns the number of communities.
func (cg *CommunityGeometry) K() int { return cg.k }

// Community returns node s's canonical community id.
func (cg *CommunityGeometry) Community(s int) int { return cg.part[s] }

// Partition returns the canonical community id of every node (shared; do
// not modify).
func (cg *CommunityGeometry) Partition() []int { return cg.part }

// Histogram returns the counts of communities at truncated distance
// 0..MaxAnswerCap from node s (shared; do not modify).
func (cg *CommunityGeometry) Histogram(s int) []int32 {
	w := MaxAnswerCap + 1
	return cg.hist[s*w : (s+1)*w]
}

// DistancesFrom returns D(s, o) for every community o (truncated at
// MaxAnswerCap): one breadth-first search from s.
func (cg *CommunityGeometry) DistancesFrom(s int) []int {
	dist := make([]int8, cg.g.N())
	cg.bfs([]int32{int32(s)}, dist, nil)
	return cg.reduce(dist, func(v int) int { return cg.part[v] }, cg.k)
}

// distanceTableMax bounds the distance table's entries (one byte each):
// beyond it the probabilities are computed node by node (DistancesFrom).
const distanceTableMax = 1 << 26

// distanceTable returns D(s, o) for every node s and community o
// (table[s*k+o], the numbers DistancesFrom(s) returns): one multi-source
// search per community, made once and shared by every calibration — a
// search from every node costs n of them, each over the graph (e-mail
// Enron: minutes an ε). Nil when it would exceed distanceTableMax.
func (cg *CommunityGeometry) distanceTable(ctx context.Context) ([]int8, error) {
	n, k := cg.g.N(), cg.k
	if n*k > distanceTableMax {
		return nil, nil
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if cg.table != nil {
		return cg.table, nil
	}
	members := make([][]int32, k)
	for v, c := range cg.part {
		members[c] = append(members[c], int32(v))
	}
	table := make([]int8, n*k)
	dist := make([]int8, n)
	queue := make([]int32, 0, n)
	for o := range k {
		if o%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		queue = cg.bfs(members[o], dist, queue[:0])
		for s, d := range dist {
			table[s*k+o] = truncated(d)
		}
	}
	cg.table = table
	return table, nil
}

// distancesIn returns D(s, ·) from the distance table.
func (cg *CommunityGeometry) distancesIn(table []int8, s int) []int {
	out := make([]int, cg.k)
	for o, d := range table[s*cg.k : (s+1)*cg.k] {
		out[o] = int(d)
	}
	return out
}

// DistancesTo returns D(s, o) for every node s and the one community o:
// one multi-source breadth-first search from o's members.
func (cg *CommunityGeometry) DistancesTo(o int) []int {
	var members []int32
	for i, c := range cg.part {
		if c == o {
			members = append(members, int32(i))
		}
	}
	dist := make([]int8, cg.g.N())
	cg.bfs(members, dist, nil)
	out := make([]int, len(dist))
	for i, d := range dist {
		out[i] = int(d)
		if d < 0 {
			out[i] = MaxAnswerCap
		}
	}
	return out
}

// reduce takes the minimum distance per group.
func (cg *CommunityGeometry) reduce(dist []int8, group func(v int) int, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = MaxAnswerCap
	}
	for v, d := range dist {
		if d >= 0 && int(d) < out[group(v)] {
			out[group(v)] = int(d)
		}
	}
	return out
}
