package job_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	. "github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// collected is a collected local release of the fixture's epoch: nodes
// 0…5 of the 3×3 grid reported, 6…8 are missing.
func (f *fixture) collected() *privacy.Released {
	fp := f.graph.Fingerprint()
	rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: 2, Rho: 0.01, Sensitivity: 0.5, EffectiveSensitivity: 0.5001,
		Epsilon: 1, Delta: 1e-6, Mechanism: "discrete", Accounting: privacy.AccountingCKS20, Scope: testScope, Epoch: testEpoch,
		ReleaseID: "rel-" + fmt.Sprintf("%032x", 5), SamplerVersion: 3, GridExponent: 10, GridVariance: 1 << 22, Keyed: true,
		Tau: 1, Alpha: 1, Graph: &fp, Expected: f.graph.N()}}
	for i := 0; i < f.graph.N(); i++ {
		if i >= 6 {
			rel.Meta.Missing = append(rel.Meta.Missing, f.graph.Key(i))
			continue
		}
		g := int64(1000*i - 2500)
		rel.Keys, rel.Grid, rel.Values = append(rel.Keys, f.graph.Key(i)), append(rel.Grid, g), append(rel.Values, math.Ldexp(float64(g), -10))
	}
	rel.Meta.N = len(rel.Keys)
	return rel
}

// TestPublishCollected: a collected release is published as a release
// run — the values stored and written to the nodes that reported, bound to
// the run, succeeded last — with nothing charged; publishing it again is
// nothing to do; a publication killed at any step is finished by the next
// with exactly the stored values, never a second run's.
func TestPublishCollected(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	rel := f.collected()
	env := Env{Backend: f.mem, Now: func() time.Time { return f.now }}
	sum, err := PublishCollected(ctx, f.spec("c1"), rel, env)
	if err != nil {
		t.Fatal(err)
	}
	if f.mem.Charges() != 0 {
		t.Errorf("publishing a collected release charged the ledger")
	}
	runs := f.mem.Runs()
	if len(runs) != 1 || runs[0].Status != connector.StatusSucceeded || runs[0].ValuesDigest != rel.Digest() || runs[0].ReleaseID != rel.Meta.ReleaseID {
		t.Fatalf("runs %+v", runs)
	}
	keys, grid := f.mem.Stored("c1")
	if privacy.ValuesDigest(keys, grid) != rel.Digest() || sum.NodePropertiesWritten != 6 {
		t.Errorf("stored %v %v, %d properties written", keys, grid, sum.NodePropertiesWritten)
	}
	for i := 0; i < f.graph.N(); i++ {
		n := f.mem.Node(f.graph.Key(i))
		if _, wrote := n["v"]; wrote != (i < 6) {
			t.Errorf("node %s: written %v, reported %v", f.graph.Key(i), wrote, i < 6)
		}
	}
	again, err := PublishCollected(ctx, f.spec("c2"), rel, env)
	if err != nil || !again.AlreadyPublished || len(f.mem.Runs()) != 1 {
		t.Errorf("again: %+v %v", again, err)
	}
	// Killed at every step, then run again.
	total := len(f.mem.Steps())
	for k := 1; k <= total; k++ {
		g := newFixture(t)
		g.mem.CrashAt, g.mem.Kill = k, true
		env := Env{Backend: g.mem, Now: func() time.Time { return g.now }}
		PublishCollected(ctx, g.spec("c1"), rel, env)
		g.mem.Restart()
		g.now = g.now.Add(2 * lease) // the killed run's lease has expired
		if _, err := PublishCollected(ctx, g.spec("c2"), rel, env); err != nil {
			t.Fatalf("killed at step %d, the re-run: %v", k, err)
		}
		var succeeded []connector.RunRecord
		for _, r := range g.mem.Runs() {
			if r.Status == connector.StatusSucceeded {
				succeeded = append(succeeded, r)
			}
		}
		if len(succeeded) != 1 || succeeded[0].ValuesDigest != rel.Digest() {
			t.Errorf("killed at step %d: succeeded runs %+v", k, succeeded)
		}
		for i := 0; i < 6; i++ {
			n := g.mem.Node(g.graph.Key(i))
			if n["v"] != rel.Values[i] || n[connector.RunIDProperty("v")] != succeeded[0].RunID {
				t.Errorf("killed at step %d: node %s holds %v of run %v", k, g.graph.Key(i), n["v"], n[connector.RunIDProperty("v")])
			}
		}
		if g.mem.Charges() != 0 {
			t.Errorf("killed at step %d: charged", k)
		}
	}
}

// TestCalibrateEpoch: an epoch's σ is the central release's calibration
// for its Δ2 and all the graph's nodes (privacy.CalibrateRelease, Δ2 from
// sensitivity.GraphContext computed independently here); the second epoch
// reuses the cached certificate and names the same digest.
func TestCalibrateEpoch(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	spec := f.spec("e")
	spec.CachePath = filepath.Join(t.TempDir(), "delta2.json")
	first, err := CalibrateEpoch(ctx, &spec, f.graph, Env{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.GraphContext(ctx, f.graph, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := privacy.CalibrateRelease(s.Delta2, 1, 1e-6, f.graph.N(), privacy.MechanismDefault)
	if err != nil {
		t.Fatal(err)
	}
	if first.Sensitivity.Delta2 != s.Delta2 || first.Calibration != want || first.Reused || first.CertificateDigest == "" {
		t.Errorf("first epoch: %+v, want Δ2 %v and %+v", first, s.Delta2, want)
	}
	second, err := CalibrateEpoch(ctx, &spec, f.graph, Env{})
	if err != nil || !second.Reused || second.CertificateDigest != first.CertificateDigest || second.Calibration != want {
		t.Errorf("second epoch: %+v, %v", second, err)
	}
	spec.Tau = 1e9 // σ below the finest grid: refused as a release is
	spec.CachePath = ""
	if _, err := CalibrateEpoch(ctx, &spec, f.graph, Env{}); err == nil {
		t.Error("τ too large for the noise grid was not refused")
	}
}

// TestLocateCollectedRun: a collected release published with missing
// sensors is located from its run — the missing nodes read without a
// value (NaN) and left out, the digest checked over those that reported —
// and a value written on a missing node is refused.
func TestLocateCollectedRun(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	rel := f.collected()
	sum, err := PublishCollected(ctx, f.spec("c1"), rel, Env{Backend: f.mem, Now: func() time.Time { return f.now }})
	if err != nil {
		t.Fatal(err)
	}
	spec := LocateSpec{RunID: "l1", Graph: "neo4j", Communities: "leiden", Release: f.run(sum.RunID),
		ReleaseDigest: f.run(sum.RunID).ValuesDigest, Tau: 1, Estimator: "posterior", Sources: 1, Seed: 1, Resolution: 1, Stream: true}
	read := func(_ context.Context, prop string) (*Input, error) { // as Neo4j with AllowMissingValues
		in := &Input{Graph: f.graph, Readings: make([]float64, f.graph.N())}
		for i := range in.Readings {
			v, ok := f.mem.Node(f.graph.Key(i))[prop].(float64)
			if !ok {
				v = math.NaN()
			}
			in.Readings[i] = v
		}
		return in, nil
	}
	p, err := PlanLocate(ctx, spec, Env{Backend: f.mem, Now: func() time.Time { return f.now }, LoadReleased: read})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Request.Released; len(got.Keys) != 6 || got.Digest() != rel.Digest() {
		t.Fatalf("located release: %v (digest %s, want %s)", got.Keys, got.Digest(), rel.Digest())
	}
	if _, err := ExecuteLocate(ctx, p); err != nil {
		t.Fatal(err)
	}
	overwritten := func(ctx context.Context, prop string) (*Input, error) { // another command wrote on a sensor that did not report
		in, err := read(ctx, prop)
		in.Readings[7] = 1.5
		return in, err
	}
	if _, err := PlanLocate(ctx, spec, Env{Backend: f.mem, Now: func() time.Time { return f.now }, LoadReleased: overwritten}); errkind.Of(err) != errkind.BadInput {
		t.Errorf("a value on a missing node: %v", err)
	}
}
