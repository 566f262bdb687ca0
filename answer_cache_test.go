package graphcloak

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
	m, err := NewAnswerModel(ctx, g, 5, part, nil, recovery.CertifierOptions{}) // τ = 5 merges sources: classes matter
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "answer.json")
	cache := AnswerCache{Path: path, MACKey: key, Software: "v-test"}
	if _, err := cache.Load(g, 5, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty cache: %v", err)
	}
	if err := cache.Store(m); err != nil {
		t.Fatal(err)
	}
	st, err := cache.Load(g, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RestoreAnswerModel(ctx, g, 5, 0, st, part, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Classes, m.Classes) || r.Geometry.N() != m.Geometry.N() {
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
	for name, c := range map[string]AnswerCache{
		"other version": {Path: path, MACKey: key, Software: "v-other"},
	} {
		if _, err := c.Load(g, 5, 0); !errors.Is(err, ErrAnswerCacheMismatch) {
			t.Errorf("%s: %v, want a mismatch", name, err)
		}
	}
	if _, err := cache.Load(g, 4, 0); !errors.Is(err, ErrAnswerCacheMismatch) {
		t.Errorf("another τ: %v", err)
	}
	if _, err := cache.Load(g, 5, 0.02); !errors.Is(err, ErrAnswerCacheMismatch) {
		t.Errorf("another tolerance: %v", err)
	}
	other, _ := laplacian.Path(34)
	if _, err := cache.Load(other, 5, 0); !errors.Is(err, ErrAnswerCacheMismatch) {
		t.Errorf("another graph: %v", err)
	}
	// A forged certificate — every class a singleton, so that the
	// mechanism would tell merged sources apart — fails the MAC.
	var cert AnswerCertificate
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
	var mac *AnswerCacheMACError
	if _, err := cache.Load(g, 5, 0); !errors.As(err, &mac) {
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
	cache := &AnswerCache{Software: "v-test", Memo: &AnswerMemo{}}
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
