package stores

import (
	"context"
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/job"
)

// DetectionRun is how a detection runs once its graph is loaded
// (Detection.Run): the method, where the partition goes and what the
// caller is told while it runs. Nil callbacks say nothing.
type DetectionRun struct {
	// Method is "leiden" or "louvain", at Resolution.
	Method     string
	Resolution float64
	// Stream: the partition goes to CSV (or Nodes) only, never to Neo4j
	// (GDS's stream mode).
	Stream bool
	// CSV receives the partition as CSV node,community, committed after
	// the detection; nil for none. Out is its path, as the summary names
	// it (write mode only).
	CSV *atomicfile.Output
	Out string
	// Nodes: the summary lists every node's community.
	Nodes bool
	// Say tells a line about the work ahead (its modelled time when long,
	// cost.DetectionLine); Phase reports the detection, which has no count;
	// Progress the write-back's.
	Say      func(line string)
	Phase    func(label string) (end func())
	Progress func(label string) func(done, total int)
}

// Run holds the process to the detection's estimated memory, partitions
// the graph (Detect), writes the partition (r.CSV; on the database's
// graph, unless r.Stream, to the configured community property in
// batches of the configured size) and returns the summary.
func (d *Detection) Run(ctx context.Context, r DetectionRun) (*community.Summary, error) {
	defer community.HoldMemoryTo(d.EstimatedBytes)()
	gr := d.Graph.Graph
	if line := cost.DetectionLine(r.Method, gr.NumEdges(), job.LongStep); line != "" && r.Say != nil {
		r.Say(line)
	}
	end := func() {}
	if r.Phase != nil {
		end = r.Phase(fmt.Sprintf("communities (%s) on %d nodes", r.Method, gr.N()))
	}
	part, sum, err := d.Detect(ctx, r.Method, r.Resolution)
	end()
	if err != nil {
		return nil, err
	}
	if r.CSV != nil {
		if err := r.CSV.CommitWith(func(w io.Writer) error { return community.WriteAssignment(w, gr.Keys(), part) }); err != nil {
			return nil, err
		}
		if !r.Stream {
			sum.Out = r.Out
		}
	}
	if r.Nodes {
		sum.Nodes = community.Nodes(gr, part)
	}
	if d.Graph.IsNeo4j() && !r.Stream {
		var progress func(done, total int)
		if r.Progress != nil {
			progress = r.Progress("write-back")
		}
		if err := d.Write(ctx, part, sum, d.write.CommunityWriteProperty, connector.WriteOptions{
			BatchSize: d.write.BatchSize, Concurrency: d.write.Concurrency, Progress: progress}); err != nil {
			return nil, err
		}
	}
	return sum, nil
}
