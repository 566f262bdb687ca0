package community

import (
	"fmt"
	"math"
	"math/rand/v2"

	gcommunity "gonum.org/v1/gonum/graph/community"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Louvain partitions g by maximising the weighted modularity
//
//	Q = 1/2m Σ_ij [ W_ij − γ d_i d_j / 2m ] δ(c_i, c_j)
//
// with the Louvain method (Blondel, Guillaume, Lambiotte & Lefebvre,
// J. Stat. Mech. 2008, P10008, doi:10.1088/1742-5468/2008/10/P10008) as
// implemented by gonum's community.Modularize, at resolution γ > 0.
// Louvain may return communities that are internally disconnected (Traag,
// Waltman & van Eck, Sci. Rep. 9:5233, 2019), so every community is then
// split into its connected pieces (SplitConnected) and the ids are relabelled
// densely in order of each community's lowest node by key (Canonical).
//
// The result depends only on g (its nodes named by their keys), resolution
// and seed: the graph is presented to gonum in key order and the random node order is drawn from a PCG
// stream seeded by seed. A graph without edges puts every node in its own
// community.
func Louvain(g *laplacian.Graph, resolution float64, seed uint64) ([]int, error) {
	if !(resolution > 0) || math.IsInf(resolution, 0) {
		return nil, fmt.Errorf("community: resolution must be positive and finite, got %v", resolution)
	}
	n := g.N()
	part := make([]int, n)
	if g.NumEdges() == 0 {
		for i := range part {
			part[i] = i
		}
		return part, nil
	}
	// On the nodes in key order, as Leiden: the partition and its names
	// are the same whatever order the graph was read in.
	kg, perm := g, g.KeyOrder()
	if perm != nil {
		kg = g.Permute(perm)
	}
	src := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	red := gcommunity.Modularize(kg, resolution, src) // laplacian.Graph is a gonum graph, iterated in index order
	for c, members := range red.Communities() {
		for _, v := range members {
			part[v.ID()] = c
		}
	}
	part = SplitConnected(kg, part)
	if perm == nil {
		return part, nil
	}
	out := make([]int, n)
	for p, v := range perm {
		out[v] = part[p]
	}
	return out, nil
}
