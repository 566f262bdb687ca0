package stores

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
)

// Neo4j is job.Backend on a Neo4j database: each method is one connector
// call (a managed transaction, retried by the driver within its
// MaxTransactionRetryTime).
type Neo4j struct {
	Client *connector.Client
	// Database holds the run records ("" = the client's default);
	// Projection selects the nodes written.
	Database   string
	Projection connector.Projection
	// Write tunes the write-back (batch size, concurrency); its Progress,
	// RunID and BindProperty are set per call.
	Write connector.WriteOptions
}

var _ job.Backend = (*Neo4j)(nil)

// run is a connector.Run as a job.Run.
type run struct{ r *connector.Run }

func (r run) Record() *connector.RunRecord                { return &r.r.Record }
func (r run) Update(ctx context.Context) error            { return r.r.Update(ctx) }
func (r run) Succeed(ctx context.Context) error           { return r.r.Succeed(ctx) }
func (r run) Fail(ctx context.Context, cause error) error { return r.r.Fail(ctx, cause) }

func (n *Neo4j) FindRelease(ctx context.Context, scope, epoch string) (*connector.RunRecord, error) {
	return n.Client.FindRelease(ctx, n.Database, scope, epoch)
}

func (n *Neo4j) ClaimOutputs(ctx context.Context, runID, command string, cl connector.Claims) error {
	return n.Client.ClaimOutputs(ctx, n.Database, runID, command, cl)
}

func (n *Neo4j) StartRun(ctx context.Context, rec connector.RunRecord, lease time.Duration) (job.Run, error) {
	r, err := n.Client.StartRun(ctx, rec, lease)
	if err != nil {
		return nil, err
	}
	return run{r}, nil
}

func (n *Neo4j) ResumeRun(ctx context.Context, prev *connector.RunRecord, lease time.Duration) (job.Run, error) {
	r, err := n.Client.ResumeRun(ctx, prev.Database, prev.RunID, lease)
	if err != nil {
		return nil, err
	}
	return run{r}, nil
}

func (n *Neo4j) StoreValues(ctx context.Context, r job.Run, keys []string, grid []int64) error {
	rec := r.Record()
	return n.Client.StoreReleaseValues(ctx, rec.Database, rec.RunID, keys, grid)
}

func (n *Neo4j) LoadValues(ctx context.Context, r job.Run) ([]string, []int64, error) {
	rec := r.Record()
	return n.Client.LoadReleaseValues(ctx, rec.Database, rec.RunID)
}

// WriteValues writes the values to the projection's nodes, each with the
// run's id beside it in the same statement (superseding the run whose id
// it replaces).
func (n *Neo4j) WriteValues(ctx context.Context, r job.Run, keys []string, values []float64, progress func(done, total int)) (connector.WriteStats, error) {
	rec := r.Record()
	rows := make([]connector.NodeProps, len(keys))
	for i, k := range keys {
		rows[i] = connector.NodeProps{Key: k, Props: map[string]any{rec.WriteProperty: values[i]}}
	}
	opt := n.Write
	opt.Progress, opt.RunID, opt.BindProperty = progress, rec.RunID, rec.WriteProperty
	return n.Client.WriteProperties(ctx, n.Projection, rows, opt)
}

// WriteNodes writes per-node properties to the projection's nodes.
func (n *Neo4j) WriteNodes(ctx context.Context, rows []connector.NodeProps, progress func(done, total int)) (connector.WriteStats, error) {
	opt := n.Write
	opt.Progress = progress
	return n.Client.WriteProperties(ctx, n.Projection, rows, opt)
}
