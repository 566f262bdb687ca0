package answer

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// A stored answer model restores to the model the pass computes (same
// classes, same fits of every source), only for the same graph, τ, T and
// version, and only when its MAC verifies under the ledger key.
func TestAnswerCacheRoundTrip(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	m, err := NewModel(ctx, g, 5, part, nil, recovery.CertifierOptions{}) // τ = 5 merges sources: classes matter
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "answer.json")
	cache := Cache{Path: path, MACKey: key, Software: "v-test"}
	if _, _, err := cache.Load(g, 5, recovery.CertifierOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty cache: %v", err)
	}
	if err := cache.Store(m); err != nil {
		t.Fatal(err)
	}
	st, tol, err := cache.Load(g, 5, recovery.CertifierOptions{})
	if err != nil || tol != recovery.DefaultFitTolerance {
		t.Fatal(err, tol)
	}
	r, err := RestoreModel(ctx, g, 5, 0, st, part, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Classes, m.Classes) || r.Geometry.N() != m.Geometry.N() || !r.restored || m.restored {
		t.Fatalf("restored classes %+v, computed %+v", r.Classes, m.Classes)
	}
	heat := heattest.PadeHeat(g, 5)
	y := make([]float64, g.N())
	for s := 0; s < g.N(); s++ {
		for i := range y {
			y[i] = 7 * heat.At(i, s)
		}
		a, _, err1 := m.FitReadings(y, "")
		b, _, err2 := r.FitReadings(y, "")
		if err1 != nil || err2 != nil || a != b {
			t.Fatalf("source %d: computed model fits %d (%v), restored %d (%v)", s, a, err1, b, err2)
		}
	}
	for name, c := range map[string]Cache{
		"other version": {Path: path, MACKey: key, Software: "v-other"},
	} {
		if _, _, err := c.Load(g, 5, recovery.CertifierOptions{}); !errors.Is(err, ErrCacheMismatch) {
			t.Errorf("%s: %v, want a mismatch", name, err)
		}
	}
	if _, _, err := cache.Load(g, 4, recovery.CertifierOptions{}); !errors.Is(err, ErrCacheMismatch) {
		t.Errorf("another τ: %v", err)
	}
	if _, _, err := cache.Load(g, 5, recovery.CertifierOptions{Tol: 0.02}); !errors.Is(err, ErrCacheMismatch) {
		t.Errorf("another tolerance: %v", err)
	}
	other, _ := laplacian.Path(34)
	if _, _, err := cache.Load(other, 5, recovery.CertifierOptions{}); !errors.Is(err, ErrCacheMismatch) {
		t.Errorf("another graph: %v", err)
	}
	// A forged certificate — every class a singleton, so that the
	// mechanism would tell merged sources apart — fails the MAC.
	var cert Certificate
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cert); err != nil {
		t.Fatal(err)
	}
	for i := range cert.State.Classes.Class {
		cert.State.Classes.Class[i] = i
	}
	cert.State.Classes.Count = len(cert.State.Classes.Class)
	b, _ = json.Marshal(cert)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var mac *CacheMACError
	if _, _, err := cache.Load(g, 5, recovery.CertifierOptions{}); !errors.As(err, &mac) {
		t.Fatalf("forged classes: %v, want a MAC error", err)
	}
}

// A memo (serve's between-slot memory) gives the next model of the same
// graph, τ and T without a pass and without a file, and a changed graph
// is computed afresh.
func TestAnswerMemo(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cache := &Cache{Software: "v-test", Memo: &Memo{}}
	first, err := cache.Model(ctx, g, 5, part, nil, recovery.CertifierOptions{}, log)
	if err != nil || strings.Contains(logs.String(), "reused") {
		t.Fatalf("first model: %v, log %s", err, logs.String())
	}
	second, err := cache.Model(ctx, g, 5, part, nil, recovery.CertifierOptions{}, log)
	if err != nil || !strings.Contains(logs.String(), "reused from memory") || !reflect.DeepEqual(second.Classes, first.Classes) {
		t.Fatalf("second model: %v, log %s", err, logs.String())
	}
	// The same graph and partition: the model itself, with the audits
	// made on it, so that serve does not audit again slot after slot.
	if second != first {
		t.Fatal("the same graph and partition gave a new model, not the remembered one")
	}
	cal, err := privacy.CalibrateAnswer(ctx, first.Geometry, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	a1, err := first.Audit(ctx, cal)
	if err != nil {
		t.Fatal(err)
	}
	first.mu.Lock()
	audits := len(first.audits)
	first.mu.Unlock()
	if audits != 1 {
		t.Fatalf("%d audits remembered, want 1", audits)
	}
	// Another partition of the same graph: the pass is reused, the
	// geometry and its audits are not.
	moved := slices.Clone(part)
	moved[0] = 1 - moved[0]
	third, err := cache.Model(ctx, g, 5, moved, nil, recovery.CertifierOptions{}, log)
	if err != nil || third == first || !reflect.DeepEqual(third.Classes, first.Classes) {
		t.Fatalf("another partition: %v (same model: %v)", err, third == first)
	}
	cal3, err := privacy.CalibrateAnswer(ctx, third.Geometry, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a3, err := third.Audit(ctx, cal3); err != nil || a3.Accuracy == a1.Accuracy {
		t.Fatalf("another partition's audit %+v (%v) equals the first's %+v", a3, err, a1)
	}
	logs.Reset()
	other, _ := laplacian.Path(34)
	if _, err := cache.Model(ctx, other, 5, part, nil, recovery.CertifierOptions{}, log); err != nil || strings.Contains(logs.String(), "reused") {
		t.Fatalf("another graph: %v, log %s", err, logs.String())
	}
}

// Certificates that cannot lie (issue 60): without a ledger key a cache is
// sealed under this installation's key, so an edited or unsealed file —
// classes edited from 2 to 34 at karate τ = 10, true loss 4 at ε = 1 — is
// never taken: the model is recomputed and the published distributions are
// the fresh model's. A restored model's refit counters are this run's, so
// a state with edited classes given to RestoreModel fails its audit.
func TestAnswerCacheUnkeyedForgery(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	g, part := laplacian.Karate()
	const tau = 10
	fresh, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Classes.Count >= g.N() {
		t.Fatalf("karate τ = %d: %d classes, want merged sources for the forgery to matter", tau, fresh.Classes.Count)
	}
	path := filepath.Join(t.TempDir(), "answer.json")
	cache := &Cache{Path: path, Software: "v-test"} // no ledger key
	if err := cache.Store(fresh); err != nil {
		t.Fatal(err)
	}
	var cert Certificate
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cert); err != nil || cert.MAC == "" {
		t.Fatalf("an unkeyed certificate is stored unsealed (%v)", err)
	}
	forge := func(mac string) {
		c := cert
		c.State.Classes.Class = make([]int, g.N())
		for i := range c.State.Classes.Class {
			c.State.Classes.Class[i] = i
		}
		c.State.Classes.Count, c.State.Classes.Merged, c.MAC = g.N(), 0, mac
		b, _ := json.Marshal(c)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cal, err := privacy.CalibrateAnswer(ctx, fresh.Geometry, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, mac := range map[string]string{"unsealed": "", "MAC kept": cert.MAC} {
		forge(mac)
		var mm *CacheMACError
		if _, _, err := cache.Load(g, tau, recovery.CertifierOptions{}); !errors.As(err, &mm) {
			t.Fatalf("%s forgery loaded: %v", name, err)
		}
		m, err := cache.Model(ctx, g, tau, part, nil, recovery.CertifierOptions{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if m.restored || !reflect.DeepEqual(m.Classes, fresh.Classes) {
			t.Fatalf("%s forgery: restored %v, classes %d (fresh %d)", name, m.restored, m.Classes.Count, fresh.Classes.Count)
		}
		cal2, err := privacy.CalibrateAnswer(ctx, m.Geometry, 1, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < g.N(); s++ {
			if p, q := cal.ProbabilitiesAt(fresh.Geometry, fresh.node(s)), cal2.ProbabilitiesAt(m.Geometry, m.node(s)); !slices.Equal(p, q) {
				t.Fatalf("%s forgery changed source %d's distribution: %v vs %v", name, s, q, p)
			}
		}
	}
	// The counters come from this run: edited classes handed to
	// RestoreModel directly (as a key holder could) fail the refit.
	st := fresh.Certifier.State(fresh.Classes)
	for i := range st.Classes.Class {
		st.Classes.Class[i] = i
	}
	st.Classes.Count = g.N()
	r, err := RestoreModel(ctx, g, tau, 0, st, part, nil)
	if err != nil {
		t.Fatal(err)
	}
	rcal, err := privacy.CalibrateAnswer(ctx, r.Geometry, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Audit(ctx, rcal)
	if err != nil {
		t.Fatal(err)
	}
	if a.Passed || a.RefitFailures == 0 || !a.Restored {
		t.Fatalf("edited classes restored: audit %+v, want the refit to fail", a)
	}
}

// The same graph read in another node order names the same certificate
// (key order): plan sorts its graph, locate does not, and each reuses the
// other's pass (issue 61, row 0), with every node's class carried by key.
func TestAnswerCacheAnyNodeOrder(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	g, part := laplacian.Karate()
	sorted, perm, err := laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	if sorted.Fingerprint() == g.Fingerprint() {
		t.Fatal("the sorted karate graph has karate's fingerprint: the test needs another order")
	}
	spart := make([]int, len(part))
	for i, c := range part {
		spart[perm[i]] = c
	}
	path := filepath.Join(t.TempDir(), "answer.json")
	cache := &Cache{Path: path, Software: "v-test"}
	log := slog.New(slog.DiscardHandler)
	first, err := cache.Model(ctx, sorted, 5, spart, nil, recovery.CertifierOptions{}, log)
	if err != nil {
		t.Fatal(err)
	}
	second, err := (&Cache{Path: path, Software: "v-test"}).Model(ctx, g, 5, part, nil, recovery.CertifierOptions{}, log)
	if err != nil || !second.restored {
		t.Fatalf("the graph in load order did not reuse the sorted graph's certificate: %v (restored %v)", err, second != nil && second.restored)
	}
	for i := range perm {
		for j := range perm {
			if (first.Classes.Class[perm[i]] == first.Classes.Class[perm[j]]) != (second.Classes.Class[i] == second.Classes.Class[j]) {
				t.Fatalf("nodes %s and %s: merged in one order, not in the other", g.Key(i), g.Key(j))
			}
		}
	}
	// The calibration made on the sorted graph is reused on the graph in
	// load order, and publishes the same distribution for every source.
	var logs strings.Builder
	logged := slog.New(slog.NewTextHandler(&logs, nil))
	calSorted, err := cache.Calibrate(ctx, first, 1, 1, 0, logged)
	if err != nil {
		t.Fatal(err)
	}
	calLoad, err := (&Cache{Path: path, Software: "v-test"}).Calibrate(ctx, second, 1, 1, 0, logged)
	if err != nil || !strings.Contains(logs.String(), "calibration reused from the cache") {
		t.Fatalf("the load-order model did not reuse the sorted graph's calibration: %v\n%s", err, logs.String())
	}
	for i := range perm {
		p, q := calSorted.ProbabilitiesAt(first.Geometry, first.node(perm[i])), calLoad.ProbabilitiesAt(second.Geometry, second.node(i))
		ps, qs := append([]float64(nil), p...), append([]float64(nil), q...)
		sort.Float64s(ps)
		sort.Float64s(qs)
		if !slices.Equal(ps, qs) {
			t.Fatalf("node %s: sorted-graph calibration %v, load-order %v", g.Key(i), ps, qs)
		}
	}
}
