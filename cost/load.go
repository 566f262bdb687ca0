package cost

import (
	"fmt"
	"time"
)

// LoadWriteMicros is the time a load's write is priced at per row (node,
// relationship or reading), between the machines it was measured on: on
// 2 quiet cores with Neo4j 5.26 warm, 15.9–18 µs (LFR 2·10⁴ and four and
// eight copies of it: 1.6·10⁵–1.3·10⁶ rows in 2.9–20.6 s; a cold server's
// first load up to twice that), and 49 µs on the same VM at load 6–9 (53.6
// s for 10⁵ nodes and 10⁶ relationships, bench/neo4j/RESULTS.md) — 28 µs
// is within 2× of both. Loading the same files again took half as long.
const LoadWriteMicros = 28.0

// Load is load's estimate (load --estimate, and its line before the
// write): the files of edges (nodes nodes, relationships relationships,
// readings readings) read in read (measured: the estimate read and
// checked them, begun at start minus read) and the write at
// LoadWriteMicros a row.
func Load(edges string, nodes, relationships, readings int, read time.Duration, start time.Time) *Estimate {
	e := &Estimate{Command: "load", Graph: edges, NodeCount: nodes, Edges: relationships, Steps: []Step{}, start: start.Add(-read)}
	e.Add(Step{Step: "read the files", Seconds: read.Seconds(), Model: "measured: the estimate read and checked them"})
	rows := nodes + relationships + readings
	e.Add(Step{Step: "write to Neo4j", Seconds: float64(rows) * LoadWriteMicros * 1e-6,
		Model: fmt.Sprintf("%d rows (nodes, relationships, readings) at %g µs a row (15–50 µs measured, by the load on the machine); about half on a reload", rows, LoadWriteMicros)})
	return e
}
