package community

import (
	"os"
	"runtime/debug"
	"slices"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Memory estimate of a community detection (GDS's .estimate): the
// larger of the load peak and the detection peak, each the live bytes it
// holds times the heap growth Go's collector allows between collections
// (gcGrowth, measured: peak RSS over the peak live heap, 1.8–2.0 on LFR
// and preferential-attachment graphs of 10⁶ and 10⁷ edges with GOGC=100),
// plus the binary and the runtime. The detection then holds to it
// (HoldMemoryTo).
//
//   - load (an edge list file or Neo4j): the edges as read, 16 bytes each
//     with up to a quarter more of slice growth, the CSR being built (8
//     bytes an edge, 28 a node, and 12 bytes an edge of links sorted
//     into buckets of rows) and the keys (Neo4jKeyBytes a node from
//     Neo4j, FileKeyBytes from a file);
//   - detection: the graph (Graph.Bytes), its keys and Leiden's working
//     memory (LeidenBytes).
const (
	gcGrowth     = 1.9
	processBytes = 16 << 20 // the binary's resident pages, outside the runtime's count: RssFile 16–17 MiB in /proc/self/status
	mappedShare  = 0.9      // resident over the runtime's count at the limit: 0.81–0.92 on LFR 10⁷
	heldFrom     = 64 << 20 // smallest estimate HoldMemoryTo holds to
)

// Memory of a node's key, by where the graph was read from (a generated
// graph stores none).
const (
	Neo4jKeyBytes = 80 // a key string and its index entry
	FileKeyBytes  = 36 // a key string and the reader's table of decimal keys (the index is built only if asked for)
)

// PeakBytes returns the estimated peak memory, in bytes, of a process that
// loads g and detects its communities with concurrency workers; keyBytes
// is the memory of each node's key (0 for a generated graph, which stores
// none).
func PeakBytes(g *laplacian.Graph, keyBytes int64, concurrency int) int64 {
	n, e := int64(g.N()), int64(g.NumEdges())
	keys := int64(0)
	load := int64(0)
	if keyBytes > 0 {
		keys = keyBytes * n
		load = 20*e + 8*e + 12*e + 28*n + keys
	}
	detect := g.Bytes() + keys + LeidenBytes(g.N(), g.NumEdges(), concurrency)
	return processBytes + int64(gcGrowth*float64(max(load, detect)))
}

// HoldMemoryTo makes the detection keep to its estimate: the collector
// runs when the runtime's memory reaches a limit (GOMEMLIMIT's soft
// limit, with GOGC=off) rather than whenever the heap has doubled. Under
// GOGC=100 the peak was wherever the heap stood when a collection began:
// LFR at 10⁷ edges peaked anywhere from 560 to 853 MiB between runs of
// one binary. The limit is the estimate less the memory outside the
// runtime's count (the binary's text, processBytes), over the share of
// the runtime's memory that is resident at the limit (mappedShare: the
// heap at the collections against the peak RSS). Live memory is about
// half the estimate (gcGrowth), so each collection frees about half.
// Estimates under heldFrom are left to GOGC: there the process is mostly
// the binary, and a limit near the runtime's own memory would keep the
// collector running. GOGC or GOMEMLIMIT in the environment win. restore
// puts back the settings before.
func HoldMemoryTo(estimate int64) (restore func()) {
	if estimate < heldFrom || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(int64(float64(estimate-processBytes) / mappedShare))
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// Sizes returns the members per community, largest first.
func Sizes(part []int) []int {
	count := map[int]int{}
	for _, c := range part {
		count[c]++
	}
	sizes := make([]int, 0, len(count))
	for _, s := range count {
		sizes = append(sizes, s)
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	return sizes
}
