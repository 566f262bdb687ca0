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
//   - per worker and node, 12 bytes of scratch (the weights to each
//     community: 4-byte counts at the base level of an unweighted graph,
//     8-byte weights at the aggregate levels);
//   - per link (two per edge), the first aggregate graph (int32 column
//     and float64 weight, 12 bytes a surviving link), held twice while its
//     blocks are copied: up to 21 bytes a link on preferential attachment
//     (88% of the links survive the first aggregation), 10 on LFR with
//     mixing 0.3 (43%). 8 is assumed: how much of the buffers is resident
//     at once depends on when the collector runs, and 8 with 175 a node
//     and gcGrowth 1.9 fit the peaks measured on LFR and preferential
//     attachment from 10⁶ to 10⁸ edges within ±20% once the communities
//     command holds the run to its estimate (under GOGC=100 alone LFR at
//     10⁷ edges peaked anywhere from 560 to 853 MiB between runs).
const (
	leidenBytesPerNode          = 175
	leidenScratchBytesPerWorker = 12
	leidenBytesPerLink          = 8
)

// LeidenBytes estimates the memory Leiden holds at its peak on a graph of
// n nodes and the given number of edges, beyond the graph itself, with
// the given concurrency (as in LeidenOptions).
func LeidenBytes(n, edges, concurrency int) int64 {
	w := int64(workersFor(concurrency))
	return (leidenBytesPerNode+leidenScratchBytesPerWorker*w)*int64(n) + leidenBytesPerLink*2*int64(edges)
}
