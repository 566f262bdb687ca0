package stores

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// This file reads the record of a release run for the jobs that work on
// a release (a localisation, unmasking its values) and finds the scope's
// last release.

// ReadRelease reads the record of release runID once, takes its
// projection unless the configuration names one (adoptProjection),
// checks that its values are still the ones in the database
// (checkRelease) and keeps it (Release) with the digest of its values
// (ReleaseDigest: "" when none is recorded, or for a record without
// release metadata).
func (s *Stores) ReadRelease(ctx context.Context, runID string) error {
	rr, err := s.Client.ReadRun(ctx, s.cfg.Neo4j.Database, runID)
	if err != nil {
		return err
	}
	if err := s.adoptProjection(rr); err != nil {
		return err
	}
	if err := s.checkRelease(ctx, rr); err != nil {
		return err
	}
	s.Release = rr
	if rr.ReleaseMeta == "" {
		return nil
	}
	s.ReleaseDigest, err = s.releaseDigest(ctx, rr)
	return err
}

// ReleaseHint names the projection settings in which the projection read
// differs from the release run's ("" when none do, or without a release).
func (s *Stores) ReleaseHint() string {
	if s.Release == nil {
		return ""
	}
	return projectionHint(s.Projection, s.Release.Projection)
}

// adoptProjection makes the projection of run record rr the one read,
// unless the configuration names a projection itself (a named projection
// or any projection key, from a flag, the environment or the file): a
// localisation on a release reads the graph the release read without its
// projection being given again.
func (s *Stores) adoptProjection(rr *connector.RunRecord) error {
	if s.cfg.ProjectionGiven() {
		return nil
	}
	p := &s.Projection
	p.NodeLabels, p.RelationshipTypes = rr.Projection.NodeLabels, rr.Projection.RelationshipTypes
	p.RelationshipWeightProperty, p.NodeKeyProperty = rr.Projection.RelationshipWeightProperty, rr.Projection.NodeKeyProperty
	s.logger.Info("projection taken from the run record", "runId", rr.RunID, "nodeLabels", p.NodeLabels,
		"relationshipTypes", p.RelationshipTypes, "relationshipWeightProperty", p.RelationshipWeightProperty,
		"nodeKeyProperty", p.NodeKeyProperty)
	return p.Validate()
}

// checkRelease checks that rr's values are still the ones in the
// database: a succeeded release run, not superseded, and every node of
// the projection that has its write property carries its run id
// (connector.CheckRunBinding). Otherwise the error names the run that
// overwrote the values.
func (s *Stores) checkRelease(ctx context.Context, rr *connector.RunRecord) error {
	runID := rr.RunID
	switch {
	case rr.Command != "release":
		return errkind.Inputf("%s: run %q is a %q run, not a release", job.ParamReleaseRun, runID, rr.Command)
	case rr.Status == connector.StatusSuperseded:
		return errkind.Inputf("%s: the values of release %q were overwritten by run %q (its record says superseded)", job.ParamReleaseRun, runID, rr.SupersededBy)
	case rr.Status != connector.StatusSucceeded:
		return errkind.Inputf("%s: release %q did not succeed (status %q)", job.ParamReleaseRun, runID, rr.Status)
	case !config.ValidIdentifier(rr.WriteProperty):
		return errkind.Inputf("%s: run %q records no valid write property", job.ParamReleaseRun, runID)
	}
	if err := s.Client.CheckRunBinding(ctx, s.Projection, rr.WriteProperty, runID); err != nil {
		if hint := projectionHint(s.Projection, rr.Projection); hint != "" {
			return fmt.Errorf("%w%s", err, hint)
		}
		return err
	}
	return nil
}

// releaseDigest returns the digest of the values release run rr
// published: the one its record holds, else (runs recorded before
// digests) that of its stored values, else "" with a warning.
func (s *Stores) releaseDigest(ctx context.Context, rr *connector.RunRecord) (string, error) {
	if rr.ValuesDigest != "" {
		return rr.ValuesDigest, nil
	}
	if rr.ValuesStored {
		keys, grid, err := s.Client.LoadReleaseValues(ctx, rr.Database, rr.RunID)
		if err != nil {
			return "", err
		}
		return privacy.ValuesDigest(keys, grid), nil
	}
	s.logger.Warn("the release run records no digest of its values (made by an older version): only their run binding is checked", "releaseRun", rr.RunID)
	return "", nil
}

// LastRelease returns the run id of the configured scope's newest
// succeeded release, or "" (logged) when there is none.
func (s *Stores) LastRelease(ctx context.Context) (string, error) {
	id, err := s.latestRelease(ctx)
	var none *NoReleaseError
	if errors.As(err, &none) {
		s.logger.Warn("no succeeded release in the scope yet: nothing to locate")
		return "", nil
	}
	return id, err
}

// NoReleaseError: the scope has no succeeded release to locate; Prev is
// its newest release, which another run superseded, the run By (nil
// when none did).
type NoReleaseError struct {
	Scope    string
	Prev, By *connector.RunRecord
}

func (e *NoReleaseError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does (nil: as they are).
func (e *NoReleaseError) RenderText(name func(errkind.Param) string) string {
	n := func(p errkind.Param) string {
		if name == nil {
			return string(p)
		}
		return name(p)
	}
	latest := n(job.ParamReleaseRun) + " latest"
	if e.Prev == nil {
		return fmt.Sprintf("%s: scope %q has no succeeded release yet", latest, e.Scope)
	}
	msg := fmt.Sprintf("%s: scope %q has no published release: its newest, run %s (epoch %s), was superseded by run %s",
		latest, e.Scope, e.Prev.RunID, e.Prev.Epoch, e.Prev.SupersededBy)
	if e.By == nil {
		return msg + fmt.Sprintf(" (whose record is gone), which wrote the same property; release again (or to another %s)", n(job.ParamWriteProperty))
	}
	msg += fmt.Sprintf(" (%s of scope %q", e.By.Command, e.By.Scope)
	if e.By.Epoch != "" {
		msg += ", epoch " + e.By.Epoch
	}
	msg += fmt.Sprintf(", which wrote %q on the same nodes)", e.Prev.WriteProperty)
	if e.By.Scope != e.Scope {
		msg += fmt.Sprintf("; locate that release with %s %s %s, or give scope %s its own %s",
			n(job.ParamScope), e.By.Scope, latest, e.Scope, n(job.ParamWriteProperty))
	} else {
		msg += fmt.Sprintf("; locate it with %s %s", n(job.ParamReleaseRun), e.By.RunID)
	}
	return msg
}

func (*NoReleaseError) Kind() errkind.Kind { return errkind.BadInput }

// latestRelease returns the run id of the newest succeeded release of the
// configured scope.
func (s *Stores) latestRelease(ctx context.Context) (string, error) {
	cfg := &s.cfg.Config
	runs, err := s.Client.ListRuns(ctx, cfg.Neo4j.Database, cfg.Privacy.Scope, 0)
	if err != nil {
		return "", err
	}
	return latestReleaseOf(runs, cfg.Privacy.Scope, func(id string) (*connector.RunRecord, error) {
		return s.Client.ReadRun(ctx, cfg.Neo4j.Database, id)
	})
}

// latestReleaseOf is latestRelease over the scope's runs, newest first:
// without a succeeded release, the error names the run (and its scope)
// that superseded the newest one, read by read.
func latestReleaseOf(runs []*connector.RunRecord, scope string, read func(string) (*connector.RunRecord, error)) (string, error) {
	var prev *connector.RunRecord
	for _, r := range runs { // newest first
		if r.Command != "release" {
			continue
		}
		if r.Status == connector.StatusSucceeded {
			return r.RunID, nil
		}
		if r.Status == connector.StatusSuperseded && prev == nil && r.SupersededBy != "" {
			prev = r
		}
	}
	e := &NoReleaseError{Scope: scope, Prev: prev}
	if prev != nil {
		if by, err := read(prev.SupersededBy); err == nil {
			e.By = by
		}
	}
	return "", e
}

// ReleasedValues rebuilds the release of run runID from the database:
// the metadata from its run record, the released values from its write
// property on the projection, once checked to be the run's own
// (ReadRelease, job.CheckReleasedValues). Released values lie on the grid
// γ = 2^-k, so r_i = value/γ is recovered exactly; anything else is
// refused.
func (s *Stores) ReleasedValues(ctx context.Context, runID string) (*privacy.Released, error) {
	if err := s.ReadRelease(ctx, runID); err != nil {
		return nil, err
	}
	rr := s.Release
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(rr.ReleaseMeta), &meta); err != nil || rr.ReleaseMeta == "" {
		return nil, errkind.Inputf("%s: run %q records no release metadata", job.ParamReleaseRun, runID)
	}
	lg, err := s.LoadGraph(ctx, Neo4jSpec, LoadOptions{ValueProperty: rr.WriteProperty, AllowMissingValues: len(meta.Missing) > 0})
	if err != nil {
		return nil, err
	}
	if lg.Graph.N() != meta.N+len(meta.Missing) { // a collected release: the nodes that reported and the missing
		return nil, errkind.Inputf("%s: the projection has %d nodes, the release had %d%s", job.ParamReleaseRun, lg.Graph.N(), meta.N+len(meta.Missing), s.ReleaseHint())
	}
	return job.CheckReleasedValues(rr, &meta, lg.Graph, lg.Pulled.Values, s.ReleaseDigest)
}
