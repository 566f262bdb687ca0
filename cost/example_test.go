package cost_test

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/cost"
)

// A load of 10⁵ nodes, 10⁶ relationships and 10⁵ readings, its files read
// in 2 s: the write priced at LoadWriteMicros a row (1.2·10⁶ × 28 µs =
// 33.6 s), as the line before the write says it.
func ExampleLoad() {
	e := cost.Load("edges.csv", 100_000, 1_000_000, 100_000, 2*time.Second, time.Now())
	fmt.Println(cost.Line("the load", e.Seconds, e.Steps))
	// Output: estimated 36 s for the load (read the files 2.0 s, write to Neo4j 34 s)
}
