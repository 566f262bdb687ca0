package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math"
	"time"

	"github.com/graphcloak/graphcloak/errkind"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// HeldSensitivity is the Δ2 at τ on g that the release of s would take
// from its cache — CachePath's file, else the work store — instead of
// computing it; nil when the release would compute Δ2. It runs the
// release's own check (cache, cachedSensitivity), so an estimate that
// prices Δ2 as reused is right exactly when the release reuses it. log
// hears why a certificate is not used (nil: nobody).
func (s *ReleaseSpec) HeldSensitivity(log *slog.Logger, g *laplacian.Graph, tau float64) *sensitivity.Result {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := s.cache(g, tau)
	if c == nil {
		return nil
	}
	return s.cachedSensitivity(log, c, g, tau)
}

// Certify is sensitivity.Certify through the store: an exact Δ2 the store
// holds for spec's graph, τ and α — a certificate that verifies, checked
// as a release checks it (cachedSensitivity) — is reused, not computed,
// when spec leaves the method to the engine (Options.MethodChosen; a
// time budget may take it too); its report says Reused and names the
// method that computed it (kappa2 null), and Save gets the store's
// certificate sealed under spec.MACKey. An exact Δ2 computed is kept for
// the next command (a bound a time budget stopped at never is). A shard,
// or w nil (--cache-dir none), is Certify's alone.
func (w *WorkCache) Certify(ctx context.Context, spec sensitivity.CertifySpec) (sensitivity.Report, error) {
	if spec.ShardCount > 0 {
		return sensitivity.CertifyGraph(ctx, spec)
	}
	start := time.Now()
	c, r := w.heldExact(spec)
	if c == nil {
		return sensitivity.CertifyGraph(ctx, spec)
	}
	log := w.logger()
	if r != nil {
		if err := saveStored(c, spec); err != nil {
			return sensitivity.Report{}, errkind.Inputf("%v: %w", sensitivity.ParamSaveFile, err)
		}
		res := sensitivity.NewReport(*r, time.Since(start).Seconds(), func(i int) any { return spec.Graph.Key(i) })
		res.Graph, res.Tau, res.Reused = spec.GraphName, &spec.Tau, true
		res.NoteMerges(spec.Graph)
		return res, nil
	}
	spec.Computed = func(r sensitivity.Result) {
		if r.Exact {
			storeSensitivity(log, c, spec.Graph, r, spec.Tau)
			w.Trim()
		}
	}
	return sensitivity.CertifyGraph(ctx, spec)
}

// heldExact is the store's certificate for spec's graph, τ and α (nil:
// no store) and the exact Δ2 Certify reuses from it (nil: none that
// verifies, or spec asks for a computation: a shard, a method named).
func (w *WorkCache) heldExact(spec sensitivity.CertifySpec) (*sensitivity.Cache, *sensitivity.Result) {
	if spec.ShardCount > 0 {
		return nil, nil
	}
	c := w.Sensitivity(spec.Graph, spec.Tau, spec.Alpha)
	if c == nil || !spec.Options.MethodChosen() {
		return c, nil
	}
	if r := cachedSensitivity(w.logger(), c, spec.Graph, spec.Tau, spec.Alpha); r != nil && r.Exact {
		return c, r
	}
	return c, nil
}

// PlanCertify is sensitivity --dry-run through the store: the method
// Certify would compute spec with and its modelled cost
// (sensitivity.NewPlanReport, baseBytes the caller's memory so far), or,
// when the store holds an exact Δ2 that Certify would reuse (heldExact,
// its own check), Reused and nothing priced: 0 s, no memory beyond
// baseBytes.
func (w *WorkCache) PlanCertify(spec sensitivity.CertifySpec, baseBytes int64) sensitivity.PlanReport {
	p := sensitivity.NewPlanReport(spec.Graph, spec.GraphName, spec.Tau, spec.Alpha, spec.Options, baseBytes)
	if _, r := w.heldExact(spec); r != nil {
		p.Reused, p.SecondsEstimate, p.BytesEstimate = true, 0, baseBytes
	}
	return p
}

// saveStored writes the store's certificate c to spec.Save (when set),
// sealed under spec.MACKey: what computing it would have written. It is
// read again and checked as Load checks it, in case another process
// replaced the file meanwhile.
func saveStored(c *sensitivity.Cache, spec sensitivity.CertifySpec) error {
	if spec.Save == "" {
		return nil
	}
	cert, err := sensitivity.LoadCertificate(c.Path)
	if err == nil {
		err = cert.CheckMAC(c.MACKey)
	}
	if err == nil {
		_, err = cert.Verify(spec.Graph, spec.Tau, spec.Alpha)
	}
	if err == nil {
		err = cert.Seal(spec.MACKey)
	}
	if err == nil {
		err = sensitivity.SaveCertificate(spec.Save, cert)
	}
	return err
}

// forecastRequest names the verdict's forecast of a localisation of the
// release releaseID on g by what locate --estimate knows before anything
// is located: the graph (in key order), the release (its id fixes its
// values, τ and σ) and the flags the forecast reads. ("" without a
// release id.) The forecast itself is read by its full key
// (forecast.AtMassMemo); this name only lets an estimate find it — a
// partition read from a file or a property that changed since makes the
// estimate say held while the run simulates again.
func (s *LocateSpec) forecastRequest(g *laplacian.Graph, releaseID string) string {
	if s.Store == nil || releaseID == "" {
		return ""
	}
	fp, err := s.Store.keyOrderFingerprint(g)
	if err != nil {
		return ""
	}
	b, _ := json.Marshal(struct {
		Version, Release, Communities string
		Graph                         laplacian.Fingerprint
		Resolution, SourceMass        uint64
		Sources, Trials               int
		Estimator                     string
		Seed                          uint64
	}{"locate verdict forecast 1", releaseID, s.Communities, fp, math.Float64bits(s.Resolution), math.Float64bits(s.SourceMass),
		s.Sources, s.ForecastTrials, s.Estimator, s.Seed})
	sum := sha256.Sum256(b)
	return "locate-" + hex.EncodeToString(sum[:])
}

// ForecastHeld reports whether the store holds the verdict's forecast a
// localisation of the release releaseID on g would read (forecastRequest):
// locate --estimate prices it at 0 s.
func (s *LocateSpec) ForecastHeld(g *laplacian.Graph, releaseID string) bool {
	key := s.forecastRequest(g, releaseID)
	if key == "" {
		return false
	}
	memo := s.Store.Forecasts()
	if memo == nil {
		return false
	}
	_, ok := memo.Load(key)
	return ok
}
