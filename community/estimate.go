package community

// Memory of a Leiden run beyond the graph, by what it allocates at its
// peak (the base level, while the first aggregate graph is built):
//
//   - per node, about 110 bytes: the order, labels, community strengths
//     and sizes, activity flags, the refined partition and its groups, the
//     node-to-aggregate map, the result and the final settling;
//   - per worker and node, 8 bytes of scratch (the weights to each
//     community);
//   - per link (two per edge), 12 bytes for the first aggregate graph
//     (int32 column and float64 weight), held twice while its blocks are
//     copied, for the share of links that survive the first aggregation:
//     70% assumed, between the measured 43% on LFR (mixing 0.3) and 88%
//     on preferential attachment.
const (
	leidenBytesPerNode          = 110
	leidenScratchBytesPerWorker = 8
	leidenBytesPerLink          = 17 // 2 · 12 · 0.7
)

// LeidenBytes estimates the memory Leiden holds at its peak on a graph of
// n nodes and the given number of edges, beyond the graph itself, with
// the given concurrency (as in LeidenOptions).
func LeidenBytes(n, edges, concurrency int) int64 {
	w := int64(workersFor(concurrency))
	return (leidenBytesPerNode+leidenScratchBytesPerWorker*w)*int64(n) + leidenBytesPerLink*2*int64(edges)
}
