package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/cancel"
)

// Detection is a community detection on a loaded graph: its estimated
// peak memory first (an estimate stops there), then the partition and its
// summary, then, on Neo4j, the write-back.
type Detection struct {
	Graph *Graph
	// EstimatedBytes is the detection's peak memory on Graph
	// (community.PeakBytes).
	EstimatedBytes int64
	loadMillis     int64
	seed           int64
	concurrency    int
	// write is the configured write-back (Run).
	write config.Write
}

// LoadDetection loads the graph spec names (LoadGraph) and estimates the
// peak memory of a detection on it with the configured workers.
func (s *Stores) LoadDetection(ctx context.Context, spec string) (*Detection, error) {
	start := time.Now()
	lg, err := s.LoadGraph(ctx, spec, LoadOptions{})
	if err != nil {
		return nil, err
	}
	w := &s.cfg.Write
	return &Detection{Graph: lg, EstimatedBytes: community.PeakBytes(lg.Graph, keyBytes(spec), w.Concurrency),
		loadMillis: time.Since(start).Milliseconds(), seed: w.RandomSeed, concurrency: w.Concurrency, write: *w}, nil
}

// Estimate is the detection's estimated peak memory, as reported.
func (d *Detection) Estimate() community.MemoryEstimate {
	return community.NewMemoryEstimate(d.Graph.Spec, d.Graph.Graph, d.EstimatedBytes)
}

// Detect partitions the graph with method ("leiden" or "louvain") at
// resolution, with the configured seed and workers, and summarises the
// partition: the timings, the estimate and how Neo4j was read with it.
// The caller holds the process to the estimate while the partition is
// computed and written (community.HoldMemoryTo).
func (d *Detection) Detect(ctx context.Context, method string, resolution float64) ([]int, *community.Summary, error) {
	gr, seed := d.Graph.Graph, uint64(d.seed)
	start := time.Now()
	part, err := cancel.Run(ctx, func() ([]int, error) {
		if method == "leiden" {
			return community.Leiden(gr, community.LeidenOptions{Resolution: resolution, Seed: seed, Concurrency: d.concurrency})
		}
		return community.Louvain(gr, resolution, seed)
	})
	if err != nil {
		return nil, nil, err
	}
	computeMillis := time.Since(start).Milliseconds()
	sum := community.Summarise(d.Graph.Spec, gr, part, method, resolution)
	sum.RandomSeed, sum.EstimatedBytes, sum.LoadMillis, sum.ComputeMillis = d.seed, d.EstimatedBytes, d.loadMillis, computeMillis
	if p := d.Graph.Pulled; p != nil {
		sum.ReadPath, sum.ReadNote = p.Stats.ReadPath, p.Stats.ReadNote
	}
	return part, sum, nil
}

// Write writes each node's community in part to property in Neo4j
// (WriteCommunities) and records what it wrote in sum.
func (d *Detection) Write(ctx context.Context, part []int, sum *community.Summary, property string, opt connector.WriteOptions) error {
	st, err := d.Graph.WriteCommunities(ctx, part, property, opt)
	if err != nil {
		return err
	}
	sum.WriteProperty, sum.NodePropertiesWritten, sum.WriteMillis = property, st.NodePropertiesWritten, st.WriteMillis
	return nil
}
