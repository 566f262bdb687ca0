package job

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestWorkCacheCertifySharesDelta2: the sensitivity command's Δ2 goes
// through the store both ways. Certified once, it is kept; certified
// again, it is reused — the same bits as sensitivity.Graph computes (the
// oracle), Reused, the method that computed it, kappa2 not computed — and
// a release of the same graph, τ and α takes it (HeldSensitivity, the
// release's own check); a Δ2 a release keeps is reused by Certify. A
// method named, a nil store (--cache-dir none) or another τ compute; a
// bound a time budget stopped at is never kept.
func TestWorkCacheCertifySharesDelta2(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	const tau, alpha = 1.0, 1.0
	want, err := sensitivity.Graph(g, tau, alpha, sensitivity.Options{})
	if err != nil || !want.Exact {
		t.Fatalf("oracle: %+v, %v", want, err)
	}
	w := &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	starts := 0 // the command's estimate line: said before a computation, never before a reuse
	spec := sensitivity.CertifySpec{Graph: g, GraphName: "karate", Tau: tau, Alpha: alpha, Software: "v1", Starting: func() { starts++ }}
	release := ReleaseSpec{Tau: tau, Alpha: alpha, Store: w, Software: "v1"}

	if held := release.HeldSensitivity(nil, g, tau); held != nil {
		t.Fatalf("an empty store holds Δ2: %+v", held)
	}
	first, err := w.Certify(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if first.Reused || first.Delta2 != want.Delta2 || first.Method != want.Method {
		t.Fatalf("first run: %+v, want Δ2 %v computed by %s", first, want.Delta2, want.Method)
	}
	second, err := w.Certify(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if starts != 1 {
		t.Fatalf("Starting called %d times over a computation and a reuse, want 1", starts)
	}
	if !second.Reused || math.Float64bits(second.Delta2) != math.Float64bits(want.Delta2) || !second.Exact ||
		second.Method != "certificate:"+want.Method || !math.IsNaN(float64(second.Kappa2)) {
		t.Fatalf("second run: %+v, want Δ2 %v reused from the certificate by %s, kappa2 not computed", second, want.Delta2, want.Method)
	}
	if held := release.HeldSensitivity(nil, g, tau); held == nil || held.Delta2 != want.Delta2 {
		t.Fatalf("a release does not take the sensitivity run's Δ2: %+v", held)
	}
	if held := release.HeldSensitivity(nil, g, 2*tau); held != nil {
		t.Fatalf("Δ2 at τ = 1 held for τ = 2: %+v", held)
	}

	// --save of a reused Δ2 writes the store's certificate, which verifies.
	saved := spec
	saved.Save = filepath.Join(t.TempDir(), "cert.json")
	if r, err := w.Certify(ctx, saved); err != nil || !r.Reused {
		t.Fatalf("reused with --save: %+v, %v", r, err)
	}
	cert, err := sensitivity.LoadCertificate(saved.Save)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := cert.Verify(g, tau, alpha); err != nil || s.Delta2 != want.Delta2 || !s.Exact {
		t.Fatalf("the saved certificate: %+v, %v", s, err)
	}

	named := spec
	named.Options = sensitivity.Options{Method: expm.Dense}
	if r, err := w.Certify(ctx, named); err != nil || r.Reused || r.Method != "dense-eigen" {
		t.Fatalf("--method dense: %+v, %v; want computed by dense-eigen", r, err)
	}
	var none *WorkCache
	if r, err := none.Certify(ctx, spec); err != nil || r.Reused {
		t.Fatalf("no store: %+v, %v; want computed", r, err)
	}

	// The other way: what a release keeps, Certify reuses.
	other := &WorkCache{Dir: t.TempDir(), MACKey: w.MACKey, Software: "v1"}
	rel := ReleaseSpec{Tau: tau, Alpha: alpha, Store: other, Software: "v1"}
	rel.keepSensitivity(other.logger(), rel.cache(g, tau), g, want, tau)
	if r, err := other.Certify(ctx, spec); err != nil || !r.Reused || r.Delta2 != want.Delta2 {
		t.Fatalf("after a release kept Δ2: %+v, %v; want it reused", r, err)
	}

	// A bound a time budget stopped at is not kept.
	big, err := laplacian.Grid(40, 40)
	if err != nil {
		t.Fatal(err)
	}
	budget := &WorkCache{Dir: t.TempDir(), MACKey: w.MACKey, Software: "v1"}
	cut := sensitivity.CertifySpec{Graph: big, Tau: 0.05, Alpha: alpha, Software: "v1",
		Options: sensitivity.Options{DenseLimit: -1, TimeBudget: time.Nanosecond}}
	r, err := budget.Certify(ctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	if r.Exact {
		t.Skipf("Δ2 of a 40×40 grid at τ = 0.05 finished within 1 ns: %+v", r)
	}
	if c := budget.Sensitivity(big, cut.Tau, alpha); c == nil {
		t.Fatal("no store")
	} else if _, err := c.Load(big, cut.Tau, alpha); err == nil {
		t.Fatalf("a bound a time budget stopped at (%v, exact %v) was kept", r.Delta2, r.Exact)
	}
}

// TestPlanCertifySaysTheStoresDelta2: sensitivity --dry-run says what the
// run would do with the store — reused, priced 0 s, when it holds an
// exact Δ2 that Certify then reuses (the oracle: Certify's own report
// after the dry run), and the modelled method and time otherwise (an
// empty store, another τ, a method named, no store).
func TestPlanCertifySaysTheStoresDelta2(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	w := &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	spec := sensitivity.CertifySpec{Graph: g, GraphName: "karate", Tau: 1, Alpha: 1, Software: "v1"}
	if p := w.PlanCertify(spec, 100); p.Reused || !(p.SecondsEstimate > 0) || p.BytesEstimate <= 100 {
		t.Fatalf("an empty store: %+v, want the computation priced", p)
	}
	if _, err := w.Certify(ctx, spec); err != nil {
		t.Fatal(err)
	}
	p := w.PlanCertify(spec, 100)
	if !p.Reused || p.SecondsEstimate != 0 || p.BytesEstimate != 100 || p.Method == "" {
		t.Fatalf("the store holds Δ2: %+v, want reused at 0 s and no memory beyond the base", p)
	}
	if r, err := w.Certify(ctx, spec); err != nil || !r.Reused {
		t.Fatalf("the dry run said reused, the run: %+v, %v", r, err)
	}
	other := spec
	other.Tau = 2
	named := spec
	named.Options = sensitivity.Options{Method: expm.Dense}
	var none *WorkCache
	for name, c := range map[string]struct {
		w    *WorkCache
		spec sensitivity.CertifySpec
	}{"τ = 2": {w, other}, "--method dense": {w, named}, "--cache-dir none": {none, spec}} {
		if p := c.w.PlanCertify(c.spec, 100); p.Reused || !(p.SecondsEstimate > 0) {
			t.Errorf("%s: %+v, want computed", name, p)
		}
		if r, err := c.w.Certify(ctx, c.spec); err != nil || r.Reused {
			t.Errorf("%s: the dry run said computed, the run: %+v, %v", name, r, err)
		}
	}
}
