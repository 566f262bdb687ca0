package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// EpochCalibration is what a local epoch's order states about its noise:
// Δ2 certified on the graph the way a release certifies it, and σ, the
// grid and ρ calibrated exactly as the central release of the same graph
// and parameters would be (privacy.CalibrateRelease for all the graph's
// nodes).
type EpochCalibration struct {
	Sensitivity sensitivity.Result
	// Reused: Δ2 came from the certificate cache (ReleaseSpec.CachePath).
	Reused      bool
	Calibration privacy.ReleaseCalibration
	// CertificateDigest is CertificateDigest of the certificate Δ2 came
	// from (ReleaseSpec.Certificate, or the cache's, as reused or just
	// stored); "" when Δ2 was computed without a cache.
	CertificateDigest string
	Fingerprint       laplacian.Fingerprint
	ComputeMillis     int64
}

// CalibrateEpoch settles Δ2 of g for spec (τ, α, ε, δ, the mechanism,
// and the Δ2 source: spec.Certificate verified against g, else the cache
// at spec.CachePath while it verifies, else computed within
// spec.TimeBudget and stored in the cache) and calibrates σ with
// graphcloak.PrecheckRelease — the release's own check, so an epoch is
// refused where a release would be (Δ2 zero or uncertified, τ too large
// for the noise grid). No reading is involved: a local epoch has none.
func CalibrateEpoch(ctx context.Context, spec *ReleaseSpec, g *laplacian.Graph, env Env) (*EpochCalibration, error) {
	start := time.Now()
	out := &EpochCalibration{Fingerprint: g.Fingerprint()}
	var s *sensitivity.Result
	if c := spec.Certificate; c != nil {
		r, err := c.Verify(g, spec.Tau, spec.Alpha)
		if err != nil {
			return nil, errkind.Inputf("%s %s: %w", ParamCertificate, spec.CertificatePath, err)
		}
		s, out.CertificateDigest = &r, CertificateDigest(*c)
	}
	cache := spec.cache(g, spec.Tau)
	if s == nil && cache != nil {
		s = spec.cachedSensitivity(env.logger(), cache, g, spec.Tau)
		out.Reused = s != nil
	}
	if s == nil {
		sayDelta2Model(env, g, spec.Tau, spec.TimeBudget)
		r, err := sensitivity.GraphContext(ctx, g, spec.Tau, spec.Alpha, sensitivity.Options{Progress: env.progress("Δ2"), TimeBudget: spec.TimeBudget})
		if err != nil {
			return nil, err
		}
		s = &r
		if cache != nil {
			spec.keepSensitivity(env.logger(), cache, g, r, spec.Tau)
		}
	}
	if cache != nil && out.CertificateDigest == "" {
		// The certificate this Δ2 came from or was kept as (not a bound the
		// store declined, which another file may sit beside).
		if c, err := sensitivity.LoadCertificate(cache.Path); err == nil && c.Delta2 == s.Delta2 {
			out.CertificateDigest = CertificateDigest(c)
		}
	}
	out.Sensitivity = *s
	cal, err := graphcloak.PrecheckRelease(ctx, graphcloak.ReleaseRequest{Graph: g, Values: make([]float64, g.N()),
		Tau: spec.Tau, Alpha: spec.Alpha, Epsilon: spec.Epsilon, Delta: spec.Delta, Mechanism: spec.Mechanism,
		Sensitivity: s, SensitivityOptions: sensitivity.Options{TimeBudget: spec.TimeBudget}})
	if err != nil {
		return nil, err
	}
	out.Calibration = cal
	out.ComputeMillis = time.Since(start).Milliseconds()
	return out, nil
}

// CertificateDigest is the hex SHA-256 of c's JSON without its MAC (a
// key-holder's authenticator, not part of what anyone can check): an
// epoch order names the certificate its Δ2 came from by it.
func CertificateDigest(c sensitivity.Certificate) string {
	c.MAC = ""
	b, _ := json.Marshal(c)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// PublishCollected publishes a collected local release (package local:
// its values are the sensors' noisy reports, its metadata the epoch
// order's) to the database the way Execute publishes a release — the
// outputs claimed and a release run record started, the release metadata
// and values' digest on it, the values stored, then written to the nodes
// that reported, bound to the run, succeeded last — with nothing charged
// and nothing drawn: the coordinator charged the epoch when it opened it.
// An epoch already published is nothing to do; one whose run stored its
// values and stopped is finished with those values (NextReleaseStep).
// spec names the database, projection, write property, scope and epoch
// (the order's); env.Backend is required.
func PublishCollected(ctx context.Context, spec ReleaseSpec, rel *privacy.Released, env Env) (sum *ReleaseSummary, err error) {
	if env.Backend == nil {
		return nil, errors.New("job: PublishCollected needs a backend")
	}
	spec.Neo4j = true
	if err := spec.Check(); err != nil {
		return nil, err
	}
	m := rel.Meta
	if m.Scope != spec.Scope || m.Epoch != spec.epoch() {
		return nil, errkind.Inputf("the collected release is of scope %q epoch %q, not %q %q", m.Scope, m.Epoch, spec.Scope, spec.epoch())
	}
	p := &ReleasePlan{Spec: spec, env: env, Summary: &ReleaseSummary{Graph: spec.Graph, ValuesFrom: spec.ValuesFrom,
		Epsilon: m.Epsilon, Delta: m.Delta, Keyed: true, Scope: m.Scope, Ledger: spec.Ledger, Epoch: m.Epoch,
		Sigma: m.Sigma, Rho: m.Rho, Delta2: m.Sensitivity, Mechanism: m.Mechanism, ReleaseID: m.ReleaseID,
		SensitivityMethod: m.SensitivityMethod, Delta2Exact: m.SensitivityExact}}
	if m.Graph != nil {
		p.Summary.NodeCount, p.Summary.RelationshipCount = m.Graph.Nodes, m.Graph.Edges
	}
	run, prev, err := p.claimOrRepublish(ctx)
	if err != nil || prev != nil {
		return p.Summary, err
	}
	p.Summary.RunID = run.Record().RunID
	defer func() { recordFailure(env.bookkeeping(ctx), env.logger(), run, err) }()
	return p.Summary, p.publish(ctx, run, rel)
}
