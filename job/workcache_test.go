package job

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
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
	g := keyedPath(t, "a", "b")
	m.Store(g, "k", a)
	got, ok := m.Load(g, "k")
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
	if _, ok := m.Load(g, "k"); ok {
		t.Fatal("an edited audit was read")
	}
}

// keyedPath is the path keys[0] – keys[1] – … in the order given.
func keyedPath(t *testing.T, keys ...string) *laplacian.Graph {
	t.Helper()
	var edges []laplacian.Edge
	for i := 1; i < len(keys); i++ {
		edges = append(edges, laplacian.Edge{U: int32(i - 1), V: int32(i), Weight: 1})
	}
	g, err := laplacian.FromEdges(len(keys), keys, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestWorkStoreOneGraphOneKey: the same graph read in two node orders
// (plan sorts it by key; locate, audit, release and serve keep the order
// read) names one Δ2 certificate and one audit — the audit's key ignores
// the partition's labels, only which nodes share a community — and the
// audit kept from one order is read back into the other with each node's
// own term on that node. Before, both were named by the fingerprint in
// the order read and the partition as labelled, so plan's audit and Δ2
// were never found by the other commands.
func TestWorkStoreOneGraphOneKey(t *testing.T) {
	w := &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	read := keyedPath(t, "c", "a", "b", "d") // c–a–b–d, not in key order
	sorted, perm, err := laplacian.SortedByKey(read)
	if err != nil {
		t.Fatal(err)
	}
	if read.Fingerprint() == sorted.Fingerprint() {
		t.Fatal("the test needs a graph whose order read is not key order")
	}
	if a, b := w.Sensitivity(read, 1, 1), w.Sensitivity(sorted, 1, 1); a == nil || b == nil || a.Path != b.Path {
		t.Fatalf("one graph, two Δ2 files: %+v, %+v", a, b)
	}
	partRead := []int{0, 1, 1, 0}        // {c, d} and {a, b}, by index in the order read
	partSorted := make([]int, len(perm)) // the same communities, labelled otherwise
	for i, p := range perm {
		partSorted[p] = 7 - partRead[i]
	}
	m := w.Audits()
	mdRead, mdSorted := answerModel(t, read, partRead), answerModel(t, sorted, partSorted)
	cal := privacy.AnswerCalibration{Mechanism: "m", Epsilon: 1, Alpha: 1}
	kRead, kSorted := m.Key(read, mdRead, 1, 0, 0, partRead, cal), m.Key(sorted, mdSorted, 1, 0, 0, partSorted, cal)
	if kRead == "" || kRead != kSorted {
		t.Fatalf("one graph and partition, two audit keys: %q, %q", kRead, kSorted)
	}
	if other := m.Key(read, mdRead, 1, 0, 0, []int{0, 0, 1, 1}, cal); other == kRead {
		t.Fatal("another partition has the same audit key")
	}
	// What is derived from the mechanism (its accuracy summed in another
	// node order, a rounding apart) does not name another audit; the
	// mechanism itself does.
	derived := cal
	derived.Accuracy, derived.Loss = 0.8897509294281253, 0.9999963205627881
	if k := m.Key(read, mdRead, 1, 0, 0, partRead, derived); k != kRead {
		t.Fatal("a calibration's derived accuracy and loss name another audit")
	}
	other := cal
	other.ScaleNum = 7
	if k := m.Key(read, mdRead, 1, 0, 0, partRead, other); k == kRead {
		t.Fatal("another mechanism has the same audit key")
	}
	ownSorted := []float64{0.1, 0.2, 0.3, 0.4} // a, b, c, d
	a := (&answer.KeptAudit{Audit: answer.Audit{Passed: true, Accuracy: 0.25}, Own: ownSorted}).Restore()
	m.Store(sorted, kSorted, a)
	got, ok := m.Load(read, kRead)
	if !ok {
		t.Fatal("the audit kept from the sorted graph is not read from the graph as read")
	}
	for i := range read.N() {
		if want := ownSorted[perm[i]]; got.OwnCommunity()[i] != want {
			t.Fatalf("node %s's own term %v, want %v (own %v)", read.Key(i), got.OwnCommunity()[i], want, got.OwnCommunity())
		}
	}
}

// answerModel is the private answer's model of g with partition part at
// τ = 1.
func answerModel(t *testing.T, g *laplacian.Graph, part []int) *answer.Model {
	t.Helper()
	m, err := answer.NewModel(context.Background(), g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reversed is g with its nodes in reverse order (the keys and edges the
// same): g read in another order.
func reversed(t *testing.T, g *laplacian.Graph) *laplacian.Graph {
	t.Helper()
	n := g.N()
	keys := make([]string, n)
	var edges []laplacian.Edge
	for i := range n {
		keys[n-1-i] = g.Key(i)
		cols, ws := g.Neighbors(i)
		for k, j := range cols {
			if int(j) > i {
				w := 1.0 // unweighted graphs keep no weights
				if ws != nil {
					w = ws[k]
				}
				edges = append(edges, laplacian.Edge{U: int32(n - 1 - i), V: int32(n - 1 - int(j)), Weight: w})
			}
		}
	}
	r, err := laplacian.FromEdges(n, keys, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAuditKeyOneMechanismInEitherOrder: the envelope calibrated on plan's
// sorted graph and read back by locate's, which keeps the order read (the
// calibrations beside the certificate, answer.Cache), names one audit.
// The envelope's weights index the model's geometry, whose order follows
// the order read; keyed by the graph's order they named two audits on a
// three-block SBM (and on football and e-mail Enron, where locate then ran
// plan's 40-minute audit again).
func TestAuditKeyOneMechanismInEitherOrder(t *testing.T) {
	ctx := context.Background()
	g, part, err := laplacian.SBM([]int{40, 40, 40}, 0.2, 0.01, 3)
	if err != nil {
		t.Fatal(err)
	}
	read := reversed(t, g)
	partRead := make([]int, len(part))
	for i := range part {
		partRead[len(part)-1-i] = part[i]
	}
	sorted, perm, err := laplacian.SortedByKey(read)
	if err != nil {
		t.Fatal(err)
	}
	partSorted := make([]int, len(perm))
	for i, p := range perm {
		partSorted[p] = partRead[i]
	}
	mdSorted, mdRead := answerModel(t, sorted, partSorted), answerModel(t, read, partRead)
	c := &answer.Cache{Path: filepath.Join(t.TempDir(), "answer.json"), MACKey: bytes.Repeat([]byte{5}, 32), Software: "v1"}
	calPlan, err := c.Calibrate(ctx, mdSorted, 1, 1, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if calPlan.Record().Envelope == nil {
		t.Fatalf("the test needs a mechanism with per-node weights; got %q", calPlan.Mechanism)
	}
	calLocate, err := c.Calibrate(ctx, mdRead, 1, 1, 0, slog.New(slog.DiscardHandler)) // read back from plan's file
	if err != nil {
		t.Fatal(err)
	}
	w := &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
	m := w.Audits()
	kPlan := m.Key(sorted, mdSorted, 1, 0.01, 0, partSorted, calPlan)
	kLocate := m.Key(read, mdRead, 1, 0.01, 0, partRead, calLocate)
	if kPlan == "" || kPlan != kLocate {
		t.Fatalf("one mechanism on one graph read in two orders, two audit keys: %q, %q", kPlan, kLocate)
	}
	other, err := c.Calibrate(ctx, mdRead, 2, 1, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if k := m.Key(read, mdRead, 1, 0.01, 0, partRead, other); k == kLocate {
		t.Fatal("the mechanism at another ε has the same audit key")
	}
}
