// Package writeback publishes the pipeline's results to Neo4j under a run
// record (package connector): a release's private values — stored durably
// before the first node is written, bound to the run, resumable after a
// crash without a new charge — and a localisation's per-node results.
//
// The order is what makes a release crash-safe: the run record gets the
// release's public metadata, then the values are stored
// (:GraphcloakReleaseValues), then written to the nodes with the run's id
// in the same statement, and the record is marked succeeded last. A
// failure before the values are stored leaves a charged epoch that cannot
// be completed (*NotStoredError); after, Resume takes the run over and
// Release writes exactly the stored values again.
package writeback

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// NotStoredError: the release's values could not be stored (or its run
// record not updated) before any node was written. The epoch is charged
// but nothing can re-publish it.
type NotStoredError struct{ Err error }

func (e *NotStoredError) Error() string {
	return "the released values were not stored: " + e.Err.Error()
}
func (e *NotStoredError) Unwrap() error    { return e.Err }
func (*NotStoredError) Kind() errkind.Kind { return errkind.Charged }

// Release publishes rel under run (whose Record the caller has filled in
// with the release's numbers): the public release metadata goes to the
// record, the values are stored, then written to the projection's nodes
// bound to the run, and the run is marked succeeded last. Record's write
// property names the node property.
func Release(ctx context.Context, c *connector.Client, run *connector.Run, rel *privacy.Released, p connector.Projection, opt connector.WriteOptions) (connector.WriteStats, error) {
	meta, err := json.Marshal(rel.Meta) // public: what unmask needs to regenerate keyed noise
	if err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	run.Record.ReleaseID, run.Record.ReleaseMeta, run.Record.ValuesDigest = rel.Meta.ReleaseID, string(meta), rel.Digest()
	if err := run.Update(ctx); err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	if err := c.StoreReleaseValues(ctx, run.Record.Database, run.ID(), rel.Keys, rel.Grid); err != nil {
		return connector.WriteStats{}, &NotStoredError{err}
	}
	run.Record.ValuesStored = true
	prop := run.Record.WriteProperty
	rows := make([]connector.NodeProps, len(rel.Keys))
	for i, k := range rel.Keys {
		rows[i] = connector.NodeProps{Key: k, Props: map[string]any{prop: rel.Values[i]}}
	}
	opt.RunID, opt.BindProperty = run.ID(), prop
	st, err := c.WriteProperties(ctx, p, rows, opt)
	if err != nil {
		return st, err
	}
	run.Record.NodePropertiesWritten, run.Record.WriteMillis = st.NodePropertiesWritten, st.WriteMillis
	return st, run.Succeed(ctx) // last
}

// Resume takes over the earlier run prev of a charged epoch (failed,
// interrupted, abandoned, or running with an expired lease) and returns it
// with the release it stored, ready for Release: the same values, no new
// charge, no new noise.
func Resume(ctx context.Context, c *connector.Client, prev *connector.RunRecord, lease time.Duration) (*connector.Run, *privacy.Released, error) {
	run, err := c.ResumeRun(ctx, prev.Database, prev.RunID, lease)
	if err != nil {
		return nil, nil, err
	}
	rel, err := storedRelease(ctx, c, run)
	if err != nil {
		// Best effort: should recording the failure fail too, the run's
		// lease expires and the next run marks it abandoned.
		_ = run.Fail(ctx, err)
		return nil, nil, err
	}
	return run, rel, nil
}

// storedRelease rebuilds the release run stored: its metadata from the
// record, its grid values from the database.
func storedRelease(ctx context.Context, c *connector.Client, run *connector.Run) (*privacy.Released, error) {
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(run.Record.ReleaseMeta), &meta); err != nil {
		return nil, &NotStoredError{fmt.Errorf("run %s: release metadata unreadable: %v", run.ID(), err)}
	}
	keys, grid, err := c.LoadReleaseValues(ctx, run.Record.Database, run.ID())
	if err != nil {
		return nil, &NotStoredError{err}
	}
	rel := &privacy.Released{Keys: keys, Grid: grid, Values: make([]float64, len(grid)), Meta: meta}
	for i, r := range grid {
		rel.Values[i] = math.Ldexp(float64(r), -meta.GridExponent)
	}
	return rel, nil
}

// LocateProperties name the node properties of a localisation.
type LocateProperties struct {
	Mass, Community, Probability, Rank string
}

// Locate writes res's per-node results (mass, community, community
// probability, rank) to the projection's nodes, fills in the run record
// and marks the run succeeded last. named says the communities have names
// (a property or a file): a numeric name is written as an integer, others
// as strings; detected communities are written as their integer ids.
func Locate(ctx context.Context, c *connector.Client, run *connector.Run, res *graphcloak.LocateResult, named bool,
	names LocateProperties, p connector.Projection, opt connector.WriteOptions) (connector.WriteStats, error) {
	rows := make([]connector.NodeProps, len(res.Nodes))
	communities := map[int]bool{}
	for i, nr := range res.Nodes {
		communities[nr.CommunityID] = true
		var comm any = int64(nr.CommunityID)
		if named {
			if c, perr := strconv.ParseInt(nr.Community, 10, 64); perr == nil {
				comm = c
			} else {
				comm = nr.Community
			}
		}
		rows[i] = connector.NodeProps{Key: nr.Key, Props: map[string]any{
			names.Mass: nr.Mass, names.Community: comm, names.Probability: nr.Probability, names.Rank: int64(nr.Rank)}}
	}
	st, err := c.WriteProperties(ctx, p, rows, opt)
	if err != nil {
		return st, err
	}
	rec := &run.Record
	rec.Sigma = res.Sigma
	rec.NodePropertiesWritten, rec.ComputeMillis, rec.WriteMillis = st.NodePropertiesWritten, res.ComputeMillis, st.WriteMillis
	rec.Extra = map[string]any{"estimator": res.Estimator, "recoveryStatus": res.Status,
		"noSource": res.Report.NoSource, "communityCount": int64(len(communities))}
	if len(res.Report.Communities) > 0 {
		rec.Extra["topCommunity"] = res.Report.Communities[0].Name
		rec.Extra["topProbability"] = res.Report.Communities[0].Share
	}
	return st, run.Succeed(ctx) // last
}
