package job

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
)

// TestWorkCacheForecasts: a kept forecast is read back as it was stored;
// one edited in its file (a doubled accuracy), one sealed under another key
// and one written by another version are not read.
func TestWorkCacheForecasts(t *testing.T) {
	dir := t.TempDir()
	w := &WorkCache{Dir: dir, MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	m := w.Forecasts()
	f := forecast.Forecast{Mode: forecast.ModePerNode, Epsilon: 2, CommunityAccuracy: 0.41, Low: 0.3, High: 0.5, Trials: 200,
		MassCurve: []forecast.MassPoint{{Mass: 1, CommunityAccuracy: 0.41}}}
	m.Store("k1", f)
	got, ok := m.Load("k1")
	if !ok || !reflect.DeepEqual(got, f) {
		t.Fatalf("read back %+v, %v; stored %+v", got, ok, f)
	}
	if _, ok := m.Load("k2"); ok {
		t.Fatal("a key never stored was found")
	}
	path := filepath.Join(dir, "forecast-k1.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"communityAccuracy":0.41`), []byte(`"communityAccuracy":0.82`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the test's edit did not apply")
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := m.Load("k1"); ok {
		t.Fatalf("an edited forecast was read: %+v", got)
	}
	other := &WorkCache{Dir: dir, MACKey: bytes.Repeat([]byte{8}, 32), Software: "v1"}
	other.Forecasts().Store("k3", f)
	if _, ok := m.Load("k3"); ok {
		t.Fatal("a forecast sealed under another key was read")
	}
	newer := &WorkCache{Dir: dir, MACKey: w.MACKey, Software: "v2"}
	newer.Forecasts().Store("k4", f)
	if _, ok := m.Load("k4"); ok {
		t.Fatal("a forecast written by another version was read")
	}
	if _, ok := newer.Forecasts().Load("k4"); !ok {
		t.Fatal("the version that wrote a forecast cannot read it")
	}
	var none *WorkCache
	if none.Forecasts() != nil || none.Sensitivity(nil, 1, 1) != nil || none.Answer(nil, 1, 0.01, 0) != nil {
		t.Fatal("no cache directory must keep nothing")
	}
}

// TestWorkCacheAudits: a kept audit is read back as computed (its
// per-node terms too) and marked restored; an edited one is not read.
func TestWorkCacheAudits(t *testing.T) {
	dir := t.TempDir()
	w := &WorkCache{Dir: dir, MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	m := w.Audits()
	a := (&answer.KeptAudit{Audit: answer.Audit{Passed: true, Accuracy: 0.75, WorstLoss: 0.9, Bound: 1, EdgesChecked: 78},
		Own: []float64{0.5, 1}}).Restore()
	a.Restored = false
	m.Store("k", a)
	got, ok := m.Load("k")
	if !ok || !got.Restored || got.Accuracy != 0.75 || !reflect.DeepEqual(got.OwnCommunity(), []float64{0.5, 1}) {
		t.Fatalf("read back %+v (own %v), %v", got, got.OwnCommunity(), ok)
	}
	path := filepath.Join(dir, "audit-k.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"worstLoss":0.9`), []byte(`"worstLoss":0.1`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the test's edit did not apply")
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Load("k"); ok {
		t.Fatal("an edited audit was read")
	}
}
