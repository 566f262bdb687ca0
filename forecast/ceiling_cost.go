package forecast

import (
	"fmt"

	"github.com/graphcloak/graphcloak/laplacian"
)

// CeilingWork is RoutedCeiling's work at one ε on a graph and partition,
// counted from their structure without solving anything, as if it routed
// at every ε (where routedFloor shows routing cannot gain, it is skipped:
// foreseeing that needs the star bound's value, so the count is then
// above the work). Its parts, in the order RoutedCeiling runs them:
//
//   - the star rows, enumerated twice (dualBound's passes; serial), each
//     time reading every node's neighbours' neighbours (TwoHop = Σ_v deg²);
//   - the far members' searches (serial): one per community, visiting the
//     nodes and edges of the components it has members in (FarVisits);
//   - the star bound's dual steps: 300, each reading the matrix's
//     StarEntries (and the n diagonal ones) twice;
//   - where it may route (n·k ≤ DefaultRoutedPairs, k ≥ 2): the floor's
//     searches (routedFloor: one per community), then routedRounds
//     routings, each a search per community (SearchVisits, the n·k Pairs
//     written) and its pairs packed (all Pairs read once, serial), the
//     dual steps of its schedule reading the Reachable pairs twice,
//     and the mean's steps reading its merged entries (about
//     routedMergedPerPair for every Reachable pair) twice.
type CeilingWork struct {
	N            int
	TwoHop       float64
	FarVisits    float64
	StarEntries  float64
	Routed       bool
	Pairs        float64
	SearchVisits float64
	Reachable    float64
	schedule     routedSchedule
	// Seconds is the work at the reference rates, Model says what was
	// counted (the step's model line).
	Seconds float64
	Model   string
}

// CountCeilingWork counts RoutedCeiling's work on g and part (routing up
// to DefaultRoutedPairs). It walks every node's two-hop neighbourhood once
// to count the star rows' entries: half the star rows' own enumerations,
// a tenth of a second at 3.7·10⁴ nodes.
func CountCeilingWork(g *laplacian.Graph, part []int) CeilingWork {
	n := g.N()
	w := CeilingWork{N: n}
	if n == 0 || len(part) != n {
		return w
	}
	id, k := communityIndex(part)
	rowPtr, _, _ := g.CSR()
	for v := range n {
		d := float64(rowPtr[v+1] - rowPtr[v])
		w.TwoHop += d * d
	}
	entries, near := starCounts(g, id, k)
	w.StarEntries = float64(entries)
	comps := componentCommunities(g, id)
	for s := range n {
		w.Reachable += float64(comps.communities[comps.of[s]] - 1)
	}
	if n*k <= maxFarPairs {
		// Every reachable community not within two hops has a far member
		// (components of diameter above maxFarHops would have fewer).
		w.StarEntries += w.Reachable - float64(near)
		w.FarVisits = comps.visits
	}
	if n*k <= DefaultRoutedPairs && k >= 2 {
		w.Routed, w.Pairs, w.SearchVisits, w.schedule = true, float64(n*k), float64(n*k)+comps.visits, scheduleFor(n*k)
	}
	w.Seconds, w.Model = w.seconds(), w.describe()
	return w
}

// The rates of CeilingWork's parts on the 2-core reference machine (this
// project's), in wall nanoseconds: measured in CPU time, and where both
// cores work divided by 1.5, the speed-up two cores gave the ceilings on
// an idle machine (plan on lfr20k, 78be03f: 106 s for 160 CPU-s). A
// neighbour's neighbour enumerated (serial), a node or edge of a far
// members' search (serial), a matrix entry or a packed routed pair read
// by a dual step, a pair packed (serial), a node or edge of a
// routing's search (or a pair it writes), and a node at every dual step
// (its y, its value's term and the 8 row chunks' coverages, cleared and
// added: 20–23 ns of CPU a node a step at 1.7·10⁴–10⁵ nodes).
const (
	twoHopNanos      = 2.3
	farVisitNanos    = 7
	entryNanos       = 1.3
	pairNanos        = 0.9
	packPairNanos    = 4.5
	searchVisitNanos = 3.6
	stepNodeNanos    = 16
	// routedMergedPerPair is the mean's merged entries a reachable pair
	// (1.1–1.4 on lfr20k-0.4, docs/guarantee.md).
	routedMergedPerPair = 1.25
)

// starSteps is the star bound's dual steps (dualBound).
const starSteps = 300

// seconds is the work at the reference rates.
func (w CeilingWork) seconds() float64 {
	n := float64(w.N)
	step := func(entries float64) float64 { return 2*entries*entryNanos + n*stepNodeNanos }
	ns := 2*w.TwoHop*twoHopNanos + w.FarVisits*farVisitNanos
	if w.StarEntries <= maxStarEntries { // dualBound's descent (newStarMatrix)
		ns += starSteps * step(w.StarEntries)
	}
	if w.Routed {
		s := w.schedule
		steps := float64(s.first + (routedRounds-1)*s.after)
		// The routings' searches and packing, and routedFloor's searches
		// (one a community, as a routing's): the floor is priced, the
		// skip it may allow is not (it needs the star bound's value).
		ns += routedRounds*(w.SearchVisits*searchVisitNanos+w.Pairs*packPairNanos) + w.SearchVisits*searchVisitNanos
		ns += steps * (2*w.Reachable*pairNanos + n*stepNodeNanos)
		ns += float64(s.mix) * step(routedMergedPerPair*w.Reachable)
	}
	return ns * 1e-9
}

// describe tells the counted work (the step's model line).
func (w CeilingWork) describe() string {
	s := fmt.Sprintf("the star rows' %.3g two-hop reads ×2 and %.3g entries read ×%d", w.TwoHop, w.StarEntries, 2*starSteps)
	if w.Routed {
		s += fmt.Sprintf(", %d routings (and the floor's searches) of %.3g pairs packed, the %.3g in reach read ×%d", routedRounds, w.Pairs, w.Reachable, 2*(w.schedule.first+(routedRounds-1)*w.schedule.after))
	}
	return s
}

// componentStats is, per connected component, how many communities have
// members in it, and the node and edge visits of one search from every
// community (Σ over communities of their components' n + 2m).
type componentStats struct {
	of          []int32
	communities []int
	visits      float64
}

func componentCommunities(g *laplacian.Graph, id []int32) componentStats {
	count, label := g.Components()
	rowPtr, _, _ := g.CSR()
	size := make([]float64, count) // n + 2m of each component
	seen := make(map[[2]int32]bool)
	st := componentStats{of: label, communities: make([]int, count)}
	for v, c := range label {
		size[c] += 1 + float64(rowPtr[v+1]-rowPtr[v])
		if key := [2]int32{c, id[v]}; !seen[key] {
			seen[key] = true
			st.communities[c]++
		}
	}
	for key := range seen {
		st.visits += size[key[0]]
	}
	return st
}

// starCounts returns the star rows' entries (starConstraints: one a
// neighbour in another community, one a community first met at two hops)
// and Σ_s the other communities within two hops of s.
func starCounts(g *laplacian.Graph, id []int32, k int) (entries, near int) {
	rowPtr, col, _ := g.CSR()
	stamp := make([]int32, k)
	for s := range g.N() {
		mark := int32(s + 1)
		stamp[id[s]] = mark
		nbrs := col[rowPtr[s]:rowPtr[s+1]]
		for _, t := range nbrs {
			if id[t] != id[s] {
				entries++
			}
			if stamp[id[t]] != mark {
				stamp[id[t]] = mark
				near++
			}
		}
		for _, v := range nbrs {
			for _, u := range col[rowPtr[v]:rowPtr[v+1]] {
				if stamp[id[u]] != mark {
					stamp[id[u]] = mark
					near++
					entries++
				}
			}
		}
	}
	return entries, near
}
