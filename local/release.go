package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// CloseEpoch closes the epoch: the close is recorded in the journal
// (fsynced) before anything else, so no report is accepted after it, even
// by a collector restarted on the same journal. It returns the epoch's
// release (Release). Closing a closed epoch returns the same release.
func (c *Collector) CloseEpoch(toolVersion string) (*privacy.Released, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	if !c.closed {
		// Every accepted line is durable before the close line follows it.
		if err := c.j.sync(c.j.written.Load()); err != nil {
			c.broken = fmt.Errorf("local: journal %s: %w", c.j.path, err)
			return nil, c.broken
		}
		at := c.now().UTC()
		line, _ := json.Marshal(journalClose{Kind: journalCloseKind, ClosedAt: at})
		upto, err := c.j.append(append(line, '\n'))
		if err == nil {
			err = c.j.sync(upto)
		}
		if err != nil {
			c.broken = fmt.Errorf("local: journal %s: %w", c.j.path, err)
			return nil, c.broken
		}
		c.closed, c.closedAt = true, at
	}
	return c.release(toolVersion), nil
}

// Closed reports whether the epoch is closed.
func (c *Collector) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Release is the epoch's release as it stands (the caller holds c.mu):
// one row per node that reported, in the order's node order, the
// metadata from the order (its sampler's mechanism, keyed, the graph's
// fingerprint, τ, α), Expected the order's node count and Missing the
// nodes that did not report.
func (c *Collector) release(toolVersion string) *privacy.Released {
	o := &c.order
	k := o.Sampler.GridExponent
	rel := &privacy.Released{Meta: ReleaseMeta(*o)}
	rel.Meta.ToolVersion = toolVersion
	for _, n := range o.Nodes {
		s, ok := c.stored[n]
		if !ok {
			rel.Meta.Missing = append(rel.Meta.Missing, n)
			continue
		}
		rel.Keys = append(rel.Keys, n)
		rel.Grid = append(rel.Grid, s.grid)
		rel.Values = append(rel.Values, math.Ldexp(float64(s.grid), -k))
	}
	rel.Meta.N = len(rel.Keys)
	return rel
}

// ReleaseMeta is the release metadata an order fixes: what a central
// keyed release of the same epoch would record, with Expected set to the
// order's node count (N, Missing and ToolVersion are the caller's).
func ReleaseMeta(o Order) privacy.ReleaseMeta {
	fp := laplacian.Fingerprint{Nodes: o.Graph.NodeCount, Edges: o.Graph.RelationshipCount, SHA256: o.Graph.SHA256}
	m, _ := privacy.MechanismAtSensor(o.Sampler.Version) // the order was checked: its sampler is a sensor's
	return privacy.ReleaseMeta{
		Sigma: o.Sampler.Sigma, Rho: o.Rho, Sensitivity: o.Sensitivity, EffectiveSensitivity: o.EffectiveSensitivity,
		Epsilon: o.Epsilon, Delta: o.Delta, Mechanism: m.Name, Accounting: m.Accounting,
		Epoch: o.Epoch, Scope: o.Scope, ReleaseID: o.ReleaseID,
		SamplerVersion: o.Sampler.Version, GridExponent: o.Sampler.GridExponent, GridVariance: o.Sampler.GridVariance,
		Keyed: true, KeyFingerprint: o.KeyFingerprint, Tau: o.Tau, Alpha: o.Alpha, Graph: &fp, Expected: len(o.Nodes),
	}
}

// ReleaseFileExistsError reports a release file already at the path that
// is not this epoch's release.
type ReleaseFileExistsError struct {
	Path, Reason string
}

func (e *ReleaseFileExistsError) Error() string {
	return fmt.Sprintf("local: release file %s exists and %s: it is never overwritten (give another path)", e.Path, e.Reason)
}

// Kind: bad input.
func (*ReleaseFileExistsError) Kind() errkind.Kind { return errkind.BadInput }

// WriteRelease writes rel to path atomically (privacy.WriteReleaseFile)
// unless the file there holds exactly this release already (the same
// release id and values: a closed epoch written again; nothing to do,
// written false). Any other file is refused (*ReleaseFileExistsError).
func WriteRelease(path string, rel *privacy.Released) (written bool, err error) {
	if _, err := os.Stat(path); err == nil {
		old, err := privacy.ReadReleaseFile(path)
		switch {
		case err != nil:
			return false, &ReleaseFileExistsError{Path: path, Reason: "is not a readable release file"}
		case old.Meta.ReleaseID != rel.Meta.ReleaseID:
			return false, &ReleaseFileExistsError{Path: path, Reason: fmt.Sprintf("holds release %q, not %q", old.Meta.ReleaseID, rel.Meta.ReleaseID)}
		case old.Digest() != rel.Digest():
			return false, &ReleaseFileExistsError{Path: path, Reason: "holds other values of this release"}
		}
		return false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("local: release file %s: %w", path, err)
	}
	return true, privacy.WriteReleaseFile(path, rel)
}

// DueToClose reports whether the epoch's window [notBefore, notAfter)
// has ended at now.
func (c *Collector) DueToClose(now time.Time) bool { return !now.Before(c.order.NotAfter) }
