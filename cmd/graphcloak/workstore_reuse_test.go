package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReleaseAndEpochReuseTheStoresDelta2: with default flags, plan keeps
// Δ2's certificate in the work store and release, epoch open and a second
// release read it from there (sensitivityReused, from the commands' own
// JSON) — karate's keys are not in key order, and plan sorts the graph
// while release and epoch do not, so this also checks that one graph names
// one certificate. A release with --cache-dir none computes Δ2 again and
// keeps nothing. On 2a43d64 release and epoch used only
// --sensitivity-cache, never the store.
func TestReleaseAndEpochReuseTheStoresDelta2(t *testing.T) {
	r := newCollectRig(t) // isolateConfig: an empty store in a fresh XDG_CACHE_HOME
	store := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")
	readings, _ := karateReadings(t, r.dir, false)
	release := func(epoch string, extra ...string) string {
		args := append([]string{"release", "--graph", "karate", "--tau", "1", "--values", readings,
			"--out", filepath.Join(r.dir, epoch+".json"), "--ledger", r.ledger, "--scope", "building-7", "--epoch", epoch,
			"--epsilon", "0.5", "--delta", "1e-7", "-o", "json"}, extra...)
		return mustRun(t, args...)
	}

	out := release("none-1", "--cache-dir", "none")
	if got := jsonField(t, out, "sensitivityReused"); got != false {
		t.Fatalf("release --cache-dir none on an empty store: sensitivityReused %v, want false", got)
	}
	if es, _ := os.ReadDir(store); len(es) != 0 {
		t.Fatalf("release --cache-dir none kept %d files in %s", len(es), store)
	}

	mustRun(t, "plan", "--graph", "karate", "--tau", "1", "--epsilon", "1", "--modes", "per-node", "--trials", "20", "-o", "json")
	var delta2 []string
	es, _ := os.ReadDir(store)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), "delta2-") {
			delta2 = append(delta2, e.Name())
		}
	}
	if len(delta2) != 1 {
		t.Fatalf("plan kept %d Δ2 certificates in the store (%v), want 1", len(delta2), delta2)
	}

	out = release("store-1")
	if got := jsonField(t, out, "sensitivityReused"); got != true {
		t.Fatalf("release after plan, default flags: sensitivityReused %v, want true (plan's certificate in %s)", got, store)
	}
	sum := r.open(t, "order-1", filepath.Join(r.dir, "order-1.json"))
	if !sum.SensitivityReused {
		t.Fatalf("epoch open after plan, default flags: sensitivityReused false, want true")
	}
	out = release("none-2", "--cache-dir", "none")
	if got := jsonField(t, out, "sensitivityReused"); got != false {
		t.Fatalf("release --cache-dir none with a full store: sensitivityReused %v, want false", got)
	}
}

// storeFiles is the store's file names by kind (the name's prefix before
// its first "-"): what each computation kept.
func storeFiles(t *testing.T, store string) map[string][]string {
	t.Helper()
	es, err := os.ReadDir(store)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range es {
		kind, _, _ := strings.Cut(e.Name(), "-")
		out[kind] = append(out[kind], e.Name())
	}
	return out
}

// TestPlanLocateAuditComputeThePassOnce: plan, then locate
// --private-answer, then audit, default flags: the answer's pass, its
// per-edge audit and Leiden's communities are computed by plan alone.
// Read from the store's own record — every computation keeps its result
// under a name made of what it depends on, so a second computation of
// anything (another key for the same graph) adds a file — and from each
// command's log and JSON: after plan the store holds one certificate, one
// audit and one partition, and locate and audit add nothing; locate's
// forecast is plan's exact row, reused. On 2a43d64 locate kept a second
// audit (plan's was named by the sorted graph) and ran Leiden and 100
// forecast trials again.
func TestPlanLocateAuditComputeThePassOnce(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	readings := karateSourceReadings(t, filepath.Join(dir, "r.csv"), 3, 1)
	store := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")
	const computing = "no answer certificate cached yet: computing the model"

	_, log := storeCLI(t, "plan", "--graph", "karate", "--epsilon", "1", "--modes", "private-answer", "--log-level", "info", "-o", "json")
	if !strings.Contains(log, computing) {
		t.Fatalf("plan on an empty store did not compute the pass:\n%s", log)
	}
	after := storeFiles(t, store)
	if len(after["answer"]) == 0 || len(after["audit"]) != 1 || len(after["leiden"]) != 1 {
		t.Fatalf("plan kept %v; want the certificate, one audit and one partition", after)
	}

	out, log := storeCLI(t, "locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "1", "--log-level", "info", "-o", "json")
	for _, want := range []string{"answer model reused from the certificate", "answer audit reused", "communities reused"} {
		if !strings.Contains(log, want) {
			t.Errorf("locate --private-answer after plan: no %q in its log:\n%s", want, log)
		}
	}
	if strings.Contains(log, computing) {
		t.Errorf("locate --private-answer after plan computed the pass again:\n%s", log)
	}
	if got := storeFiles(t, store); !reflect.DeepEqual(got, after) {
		t.Errorf("locate --private-answer after plan computed again: the store went from\n%v\nto\n%v", after, got)
	}
	if r := jsonField(t, out, "forecast.reused"); r != true {
		t.Errorf("locate's forecast: reused %v, want plan's row (true)", r)
	}

	out, _ = storeCLI(t, "audit", "--graph", "karate", "-o", "json")
	if r := jsonField(t, out, "reused"); r != true {
		t.Errorf("audit after plan and locate: reused %v, want true", r)
	}
	if got := storeFiles(t, store); !reflect.DeepEqual(got, after) {
		t.Errorf("audit after plan computed again: the store went from\n%v\nto\n%v", after, got)
	}
}

// TestAuditKeepsOneCertificatePerSensorNoise: audits of one graph without
// and with --sensor-noise certify two models, kept under two names in the
// store, so that each is reused by the next audit of its own ν. On
// 7a8279a audit named the store's file before ν was set: both audits named
// one file and replaced each other's certificate (a load checks ν, so the
// other audit computed the pass again).
func TestAuditKeepsOneCertificatePerSensorNoise(t *testing.T) {
	isolateConfig(t)
	store := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "graphcloak", "store")
	plain := []string{"audit", "--graph", "karate", "-o", "json"}
	noisy := []string{"audit", "--graph", "karate", "--sensor-noise", "0.005", "-o", "json"}
	for _, c := range []struct {
		args   []string
		reused bool
	}{{plain, false}, {noisy, false}, {plain, true}, {noisy, true}} {
		out, _ := storeCLI(t, c.args...)
		if r := jsonField(t, out, "reused"); r != c.reused {
			t.Errorf("%s: reused %v, want %v", strings.Join(c.args, " "), r, c.reused)
		}
	}
	if got := storeFiles(t, store)["answer"]; len(got) != 2 {
		t.Errorf("the store keeps %v; want two certificates, ν = 0's and ν = 0.005's", got)
	}
}

// TestSensorNoiseAuditTakesTheStoredNorms (issue 79): after an audit at
// the default T, an audit with --sensor-noise takes its weakest signal
// from the stored certificate instead of running the pass of the norms
// again — the estimate prices the pass at T alone (its sources: the
// plain pass's, not those plus a source each for the norms) — and
// certifies what an audit on an empty store certifies (the same T, to
// the bit). On c2bfb18 the estimate counted the norms' pass after the
// audit too, and the pass ran (LFR 2·10⁴: 3 min 12 s before the pass at T).
func TestSensorNoiseAuditTakesTheStoredNorms(t *testing.T) {
	isolateConfig(t)
	graph := "pa:n=600,m=2,seed=4"
	noisy := []string{"audit", "--graph", graph, "--sensor-noise", "0.005", "-o", "json"}
	cold, _ := storeCLI(t, append(noisy, "--cache-dir", t.TempDir())...)
	before, _ := storeCLI(t, append(noisy, "--estimate")...)
	plain, _ := storeCLI(t, "audit", "--graph", graph, "-o", "json")
	after, _ := storeCLI(t, append(noisy, "--estimate")...)
	run, _ := storeCLI(t, noisy...)
	sources := func(doc string) float64 { return jsonField(t, doc, "estimate.sources").(float64) }
	if sources(after) != sources(plain) || !(sources(before) > sources(after)) {
		t.Errorf("the sensor-noise audit's estimate prices %v sources on an empty store, %v after the plain audit (which ran %v): want the pass at T alone after it",
			sources(before), sources(after), sources(plain))
	}
	if got, want := jsonField(t, run, "fitTolerance"), jsonField(t, cold, "fitTolerance"); got != want {
		t.Errorf("T = %v with the stored norms, %v from the pass of the norms", got, want)
	}
}
