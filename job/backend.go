package job

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

// Backend is where a release keeps its run records and publishes its
// values: Neo4j (stores.Neo4j) or, in tests, jobtest.Memory. Each method is
// one step against the store that a crash can interrupt; Execute orders
// them so that every interruption leaves one of the documented states
// (see State).
type Backend interface {
	// FindRelease returns the release run that charged scope's epoch —
	// the newest that published, else the newest — or nil.
	FindRelease(ctx context.Context, scope, epoch string) (*connector.RunRecord, error)
	// ClaimOutputs records runID (of command) as the owner of the claimed
	// output properties (refused, *connector.OutputOwnedError, when
	// another kind of output or an input owns one).
	ClaimOutputs(ctx context.Context, runID, command string, claims connector.Claims) error
	// StartRun writes rec "running" with a lease, holding its scope:
	// *connector.ScopeBusyError while another live run holds the scope,
	// *connector.EpochPublishedError when another run published the
	// epoch meanwhile.
	StartRun(ctx context.Context, rec connector.RunRecord, lease time.Duration) (Run, error)
	// ResumeRun takes over the run prev (failed, interrupted, abandoned,
	// or running with an expired lease): *connector.RunStateError when it
	// is still live.
	ResumeRun(ctx context.Context, prev *connector.RunRecord, lease time.Duration) (Run, error)
	// StoreValues stores the released grid values durably under the run,
	// before any node is written; LoadValues reads them back.
	StoreValues(ctx context.Context, run Run, keys []string, grid []int64) error
	LoadValues(ctx context.Context, run Run) (keys []string, grid []int64, err error)
	// WriteValues writes values[i] to node keys[i]'s run's write
	// property, bound to the run (its id beside each value, in the same
	// statement).
	WriteValues(ctx context.Context, run Run, keys []string, values []float64, progress func(done, total int)) (connector.WriteStats, error)
	// WriteNodes writes per-node properties (a localisation's results),
	// not bound to a run.
	WriteNodes(ctx context.Context, rows []connector.NodeProps, progress func(done, total int)) (connector.WriteStats, error)
}

// Run is a run record held by this process (a lease kept alive by a
// heartbeat on Neo4j).
type Run interface {
	// Record is the run's record; Update stores it as it is.
	Record() *connector.RunRecord
	Update(ctx context.Context) error
	// Succeed marks it succeeded (last); Fail failed, or interrupted when
	// cause is a cancelled context.
	Succeed(ctx context.Context) error
	Fail(ctx context.Context, cause error) error
}
