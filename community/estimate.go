package community

// Memory of a Leiden run beyond the graph, by what it holds at its peak
// (the base level, while the first aggregate graph is built):
//
//   - per node, about 175 bytes: the order, labels, community strengths
//     and sizes, activity flags, the refined partition and its groups, the
//     node-to-aggregate map, the result and the final settling (about 110
//     by the arrays' sizes; 175 fits the peak live heap measured with
//     GOGC=5 on preferential attachment at 2·10⁶ nodes, where the later
//     levels keep many nodes);
//   - per worker and node, 8 bytes of scratch (the weights to each
//     community);
//   - per link (two per edge), 12 bytes (int32 column and float64 weight)
//     for the first aggregate graph: one array with a slot for every link
//     of the level, of which only the links that survive the aggregation
//     are written, and so resident: 88% of them on preferential attachment,
//     43% on LFR with mixing 0.3; 65% is assumed, 8 bytes a link.
const (
	leidenBytesPerNode          = 175
	leidenScratchBytesPerWorker = 8
	leidenBytesPerLink          = 8 // 12 · 0.65
)

// LeidenBytes estimates the memory Leiden holds at its peak on a graph of
// n nodes and the given number of edges, beyond the graph itself, with
// the given concurrency (as in LeidenOptions).
func LeidenBytes(n, edges, concurrency int) int64 {
	w := int64(workersFor(concurrency))
	return (leidenBytesPerNode+leidenScratchBytesPerWorker*w)*int64(n) + leidenBytesPerLink*2*int64(edges)
}
