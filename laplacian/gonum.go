package laplacian

import (
	"math"

	"gonum.org/v1/gonum/graph"
)

// The gonum view of a Graph: node IDs are the indices 0..n-1, iterators
// walk the CSR rows lazily (nothing is copied per call), and weights
// follow gonum's conventions for simple.WeightedUndirectedGraph with
// self = 0 and absent = +Inf:
//
//	Weight(x, x) = (0, true)      no self-loops; Louvain adds weight(x, x) to k_x
//	Weight(x, y) = (w_xy, true)   x ~ y
//	Weight(x, y) = (+Inf, false)  not adjacent (path algorithms: unreachable)
//
// so community.Modularize sees exactly the adjacency W of L = D − W and
// path.DijkstraFrom uses w_xy as edge length.
var _ graph.WeightedUndirected = (*Graph)(nil)

// node is a gonum graph.Node whose ID is the node index.
type node int64

func (n node) ID() int64 { return int64(n) }

// weightedEdge is a gonum graph.WeightedEdge.
type weightedEdge struct {
	f, t node
	w    float64
}

func (e weightedEdge) From() graph.Node         { return e.f }
func (e weightedEdge) To() graph.Node           { return e.t }
func (e weightedEdge) Weight() float64          { return e.w }
func (e weightedEdge) ReversedEdge() graph.Edge { return weightedEdge{e.t, e.f, e.w} }

// nodeRange iterates over the nodes 0..n-1.
type nodeRange struct {
	n, cur int64
}

func (it *nodeRange) Next() bool {
	if it.cur+1 >= it.n {
		it.cur = it.n
		return false
	}
	it.cur++
	return true
}
func (it *nodeRange) Len() int { return int(max(it.n-it.cur-1, 0)) }
func (it *nodeRange) Reset()   { it.cur = -1 }
func (it *nodeRange) Node() graph.Node {
	if it.cur < 0 || it.cur >= it.n {
		return nil
	}
	return node(it.cur)
}

// rowNodes iterates over one CSR row.
type rowNodes struct {
	cols []int32
	cur  int
}

func (it *rowNodes) Next() bool {
	if it.cur+1 >= len(it.cols) {
		it.cur = len(it.cols)
		return false
	}
	it.cur++
	return true
}
func (it *rowNodes) Len() int { return max(len(it.cols)-it.cur-1, 0) }
func (it *rowNodes) Reset()   { it.cur = -1 }
func (it *rowNodes) Node() graph.Node {
	if it.cur < 0 || it.cur >= len(it.cols) {
		return nil
	}
	return node(it.cols[it.cur])
}

func (g *Graph) has(id int64) bool { return id >= 0 && id < int64(g.n) }

// Node returns the node with the given ID (its index), or nil.
func (g *Graph) Node(id int64) graph.Node {
	if !g.has(id) {
		return nil
	}
	return node(id)
}

// Nodes returns a lazy iterator over all nodes in index order.
func (g *Graph) Nodes() graph.Nodes { return &nodeRange{n: int64(g.n), cur: -1} }

// From returns a lazy iterator over the neighbours of node id, in index order.
func (g *Graph) From(id int64) graph.Nodes {
	if !g.has(id) {
		return graph.Empty
	}
	lo, hi := g.rowPtr[id], g.rowPtr[id+1]
	return &rowNodes{cols: g.col[lo:hi], cur: -1}
}

// HasEdgeBetween reports whether nodes xid and yid are adjacent.
func (g *Graph) HasEdgeBetween(xid, yid int64) bool {
	return g.has(xid) && g.has(yid) && g.find(int(xid), int(yid)) >= 0
}

// Edge returns the edge from uid to vid (a graph.WeightedEdge), or nil.
func (g *Graph) Edge(uid, vid int64) graph.Edge {
	if e, ok := g.weightedEdge(uid, vid); ok {
		return e
	}
	return nil
}

// EdgeBetween is Edge: the graph is undirected.
func (g *Graph) EdgeBetween(xid, yid int64) graph.Edge { return g.Edge(xid, yid) }

// WeightedEdge returns the weighted edge from uid to vid, or nil.
func (g *Graph) WeightedEdge(uid, vid int64) graph.WeightedEdge {
	if e, ok := g.weightedEdge(uid, vid); ok {
		return e
	}
	return nil
}

// WeightedEdgeBetween is WeightedEdge: the graph is undirected.
func (g *Graph) WeightedEdgeBetween(xid, yid int64) graph.WeightedEdge {
	return g.WeightedEdge(xid, yid)
}

func (g *Graph) weightedEdge(uid, vid int64) (weightedEdge, bool) {
	if !g.has(uid) || !g.has(vid) {
		return weightedEdge{}, false
	}
	p := g.find(int(uid), int(vid))
	if p < 0 {
		return weightedEdge{}, false
	}
	w := 1.0
	if g.weight != nil {
		w = g.weight[p]
	}
	return weightedEdge{node(uid), node(vid), w}, true
}

// Weight returns w_xy and true for adjacent nodes, (0, true) when xid ==
// yid names a node of the graph (no self-loops), and (+Inf, false)
// otherwise.
func (g *Graph) Weight(xid, yid int64) (w float64, ok bool) {
	if xid == yid && g.has(xid) {
		return 0, true
	}
	if e, ok := g.weightedEdge(xid, yid); ok {
		return e.w, true
	}
	return math.Inf(1), false
}
