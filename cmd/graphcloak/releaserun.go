package main

import (
	"context"
	"fmt"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// This file reads the record of a --release-run for unmask and locate
// (shared, so that neither command calls the other's helpers).

// releaseRunRecord reads the record of release runID once, takes its
// projection unless the command names one (adoptRunProjection), checks
// that its values are still the ones in the database (checkReleaseRun)
// and returns it with the digest of its values ("": none recorded, or a
// record without release metadata).
func releaseRunRecord(ctx context.Context, g *globalOptions, client *connector.Client, runID string) (*connector.RunRecord, string, error) {
	rr, err := client.ReadRun(ctx, g.cfg.Neo4j.Database, runID)
	if err != nil {
		return nil, "", err
	}
	if err := adoptRunProjection(g, rr); err != nil {
		return nil, "", err
	}
	if err := checkReleaseRun(ctx, g, client, rr); err != nil {
		return nil, "", err
	}
	if rr.ReleaseMeta == "" {
		return rr, "", nil
	}
	digest, err := releaseDigest(ctx, g, client, rr)
	return rr, digest, err
}

// adoptRunProjection makes the projection of run record rr the one read,
// unless the command names a projection itself (--projection or any
// projection flag, variable or key): "locate --release-run R" reads the
// graph the release read without its flags being retyped.
func adoptRunProjection(g *globalOptions, rr *connector.RunRecord) error {
	if g.cfg.ProjectionGiven() {
		return nil
	}
	p := &g.cfg.Projection
	p.NodeLabels, p.RelationshipTypes = rr.Projection.NodeLabels, rr.Projection.RelationshipTypes
	p.RelationshipWeightProperty, p.NodeKeyProperty = rr.Projection.RelationshipWeightProperty, rr.Projection.NodeKeyProperty
	g.logger.Info("projection taken from the run record", "runId", rr.RunID, "nodeLabels", p.NodeLabels,
		"relationshipTypes", p.RelationshipTypes, "relationshipWeightProperty", p.RelationshipWeightProperty,
		"nodeKeyProperty", p.NodeKeyProperty)
	return stores.ProjectionOf(&g.cfg.Config).Validate()
}

// checkReleaseRun checks that rr's values are still the ones in the
// database: a succeeded release run, not superseded, and every node of
// the projection that has its write property carries its run id
// (connector.CheckRunBinding). Otherwise the error names the run that
// overwrote the values.
func checkReleaseRun(ctx context.Context, g *globalOptions, client *connector.Client, rr *connector.RunRecord) error {
	cfg := &g.cfg.Config
	runID := rr.RunID
	switch {
	case rr.Command != "release":
		return inputErrorf("--release-run: run %q is a %q run, not a release", runID, rr.Command)
	case rr.Status == connector.StatusSuperseded:
		return inputErrorf("--release-run: the values of release %q were overwritten by run %q (its record says superseded)", runID, rr.SupersededBy)
	case rr.Status != connector.StatusSucceeded:
		return inputErrorf("--release-run: release %q did not succeed (status %q)", runID, rr.Status)
	case !config.ValidIdentifier(rr.WriteProperty):
		return inputErrorf("--release-run: run %q records no valid write property", runID)
	}
	if err := client.CheckRunBinding(ctx, stores.ProjectionOf(cfg), rr.WriteProperty, runID); err != nil {
		if hint := stores.ProjectionHint(stores.ProjectionOf(cfg), rr.Projection); hint != "" {
			return fmt.Errorf("%w%s", err, hint)
		}
		return err
	}
	return nil
}

// releaseDigest returns the digest of the values release run rr
// published: the one its record holds, else (runs recorded before
// digests) that of its stored values, else "" with a warning.
func releaseDigest(ctx context.Context, g *globalOptions, client *connector.Client, rr *connector.RunRecord) (string, error) {
	if rr.ValuesDigest != "" {
		return rr.ValuesDigest, nil
	}
	if rr.ValuesStored {
		keys, grid, err := client.LoadReleaseValues(ctx, rr.Database, rr.RunID)
		if err != nil {
			return "", err
		}
		return privacy.ValuesDigest(keys, grid), nil
	}
	g.logger.Warn("the release run records no digest of its values (made by an older version): only their run binding is checked", "releaseRun", rr.RunID)
	return "", nil
}
