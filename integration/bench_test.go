package integration

import (
	"context"
	"strconv"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
)

// BenchmarkReadGraph pulls an SBM (4000 nodes, ≈ 40 000 relationships)
// through connector.ReadGraph, by graphcloak's plugin and by Cypher, and
// reports relationships/s. The 10^5-node benchmark with memory figures is
// the program in bench/neo4j.
func BenchmarkReadGraph(b *testing.B) {
	c, s := connect(b)
	d := rawDriver(b, s)
	f := sbmFixture(b, []int{1000, 1000, 1000, 1000}, 0.018, 0.0005, 1)
	f.load(b, d)
	p := f.projection(true)
	ctx := context.Background()
	for _, path := range readPaths {
		b.Run(path.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g, err := c.ReadGraph(ctx, p, path.opt)
				if err != nil {
					b.Fatal(err)
				}
				if g.Stats.ReadPath != path.name {
					b.Fatalf("read by %s", g.Stats.ReadPath)
				}
			}
			b.ReportMetric(float64(len(f.Rels))*float64(b.N)/b.Elapsed().Seconds(), "rels/s")
		})
	}
}

// BenchmarkWriteProperties writes 4 properties to each of 4000 nodes in
// batches of 1000 and reports node properties/s.
func BenchmarkWriteProperties(b *testing.B) {
	c, s := connect(b)
	d := rawDriver(b, s)
	f := sbmFixture(b, []int{2000, 2000}, 0.001, 0.0001, 2)
	f.load(b, d)
	rows := make([]connector.NodeProps, len(f.Keys))
	for i := range rows {
		rows[i] = connector.NodeProps{Key: strconv.FormatInt(f.Keys[i], 10), Props: map[string]any{
			"bValue": float64(i), "bMass": 0.5, "bCommunity": f.Community[i], "bProbability": 0.25}}
	}
	p := f.projection(true)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.WriteProperties(ctx, p, rows, connector.WriteOptions{BatchSize: 1000}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(4*len(rows))*float64(b.N)/b.Elapsed().Seconds(), "props/s")
}
