package community

import (
	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/graphcloak/graphcloak/laplacian"
)

// gonumView presents a *laplacian.Graph as a gonum graph.WeightedUndirected
// with node IDs equal to node indices. Every iteration is in index order, so
// gonum's Louvain sees the same sequence of nodes and edges on every run and
// the result depends only on the seed (a map-backed simple graph would not
// guarantee that).
type gonumView struct{ g *laplacian.Graph }

var _ graph.WeightedUndirected = gonumView{}

func (v gonumView) Node(id int64) graph.Node {
	if id < 0 || id >= int64(v.g.N()) {
		return nil
	}
	return simple.Node(id)
}

func (v gonumView) Nodes() graph.Nodes {
	n := v.g.N()
	nodes := make([]graph.Node, n)
	for i := range nodes {
		nodes[i] = simple.Node(i)
	}
	return iterator.NewOrderedNodes(nodes)
}

func (v gonumView) From(id int64) graph.Nodes {
	if id < 0 || id >= int64(v.g.N()) {
		return graph.Empty
	}
	cols, _ := v.g.Neighbors(int(id))
	if len(cols) == 0 {
		return graph.Empty
	}
	nodes := make([]graph.Node, len(cols))
	for k, c := range cols {
		nodes[k] = simple.Node(c)
	}
	return iterator.NewOrderedNodes(nodes)
}

func (v gonumView) valid(id int64) bool { return id >= 0 && id < int64(v.g.N()) }

func (v gonumView) HasEdgeBetween(xid, yid int64) bool {
	return v.valid(xid) && v.valid(yid) && xid != yid && v.g.EdgeWeight(int(xid), int(yid)) != 0
}

func (v gonumView) Edge(uid, vid int64) graph.Edge { return v.WeightedEdge(uid, vid) }

func (v gonumView) EdgeBetween(xid, yid int64) graph.Edge { return v.WeightedEdge(xid, yid) }

func (v gonumView) WeightedEdgeBetween(xid, yid int64) graph.WeightedEdge {
	return v.WeightedEdge(xid, yid)
}

func (v gonumView) WeightedEdge(uid, vid int64) graph.WeightedEdge {
	if !v.HasEdgeBetween(uid, vid) {
		return nil
	}
	return simple.WeightedEdge{F: simple.Node(uid), T: simple.Node(vid), W: v.g.EdgeWeight(int(uid), int(vid))}
}

// Weight returns 0 for a node with itself (the graph has no self-loops) and
// for absent edges.
func (v gonumView) Weight(xid, yid int64) (float64, bool) {
	if xid == yid {
		return 0, true
	}
	if v.HasEdgeBetween(xid, yid) {
		return v.g.EdgeWeight(int(xid), int(yid)), true
	}
	return 0, false
}
