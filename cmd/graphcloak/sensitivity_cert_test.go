package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestSensitivityCertificateRelease: sensitivity --save writes a
// certificate; release --sensitivity-cert uses it on the same graph (same
// Δ2, no recomputation needed) and refuses it, exit 3 naming the
// difference, on another graph or τ — before the ledger is charged.
func TestSensitivityCertificateRelease(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	cert := filepath.Join(dir, "karate.cert.json")
	out, code, err := runSensitivityCLI(t, "--graph", "karate", "--tau", "0.5", "--save", cert, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var s map[string]any
	json.Unmarshal([]byte(out), &s)
	c, err := sensitivity.LoadCertificate(cert)
	if err != nil {
		t.Fatal(err)
	}
	if c.Delta2 != s["delta2"].(float64) || c.Tau != 0.5 || c.Graph.Nodes != 34 || c.Graph.Edges != 78 {
		t.Fatalf("certificate %+v for output %v", c, s)
	}

	readings, _ := karateReadings(t, dir, true)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger, "--scope", "club")
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", filepath.Join(dir, "r.json"), "--ledger", ledger, "--scope", "club", "--tau", "0.5",
		"--sensitivity-cert", cert, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum map[string]any
	json.Unmarshal([]byte(stdout), &sum)
	if sum["delta2"] != c.Delta2 {
		t.Errorf("release used Δ2 %v, certificate %v", sum["delta2"], c.Delta2)
	}

	// Another graph with the same node keys: karate without one edge.
	var b strings.Builder
	b.WriteString("source,target\n")
	g, _ := laplacian.Karate()
	skipped := false
	g.ForEachEdge(func(i, j int, w float64) {
		if !skipped {
			skipped = true
			return
		}
		b.WriteString(g.Key(i) + "," + g.Key(j) + "\n")
	})
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(other, []byte(b.String()), 0o600)
	for name, args := range map[string][]string{
		"graph": {"--graph", "file:" + other, "--tau", "0.5"},
		"tau":   {"--graph", "karate", "--tau", "0.4"}, // a larger τ is accepted (TestCertificatesAuthenticated)
	} {
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, append([]string{"release", "--values", readings,
			"--out", filepath.Join(dir, name+".json"), "--ledger", ledger, "--scope", "club", "--sensitivity-cert", cert}, args...)...)
		if code != exitBadInput || !strings.Contains(stderr, "does not match: "+name) {
			t.Errorf("%s: exit %d, stderr %s", name, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".json")); err == nil {
			t.Errorf("%s: a release file was written", name)
		}
	}
	_, _, code = runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", filepath.Join(dir, "x.json"), "--ledger", ledger, "--sensitivity-cert", cert, "--time-budget", "1s")
	if code != exitUsage {
		t.Errorf("--sensitivity-cert with --time-budget: exit %d", code)
	}
}

// editCert rewrites the certificate at path with Δ2 halved (its MAC, if
// any, kept): what a hand edit that weakens the noise looks like.
func editCert(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["delta2"] = m["delta2"].(float64) / 2
	data, _ = json.Marshal(m)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 33, defect 4: with a ledger key, certificates are sealed
// (sensitivity --save) and a release trusts only a sealed, unedited one:
// a hand-edited --sensitivity-cert (Δ2 halved) or an unsealed one is
// refused (exit 3) before anything is charged; a hand-edited
// --sensitivity-cache is not trusted — Δ2 is computed and the release
// uses the true one. A certificate at a smaller τ than the release's is
// accepted as the upper bound it is.
func TestCertificatesAuthenticated(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	lkey := filepath.Join(dir, "ledger.key")
	k, _ := privacy.GenerateKey()
	if err := privacy.WriteKeyFile(lkey, k); err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger, "--ledger-key", lkey)
	readings, _ := karateReadings(t, dir, true)
	release := func(name string, extra ...string) (map[string]any, string, int) {
		args := append([]string{"release", "--graph", "karate", "--values", readings, "--out", filepath.Join(dir, name+".json"),
			"--ledger", ledger, "--ledger-key", lkey, "--tau", "0.5", "--epoch", name, "-o", "json"}, extra...)
		stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		var sum map[string]any
		json.Unmarshal([]byte(stdout), &sum)
		return sum, stderr, code
	}
	spent := func() string {
		out, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "--ledger-key", lkey, "-o", "json")
		return out
	}

	sealed, unsealed := filepath.Join(dir, "sealed.cert"), filepath.Join(dir, "unsealed.cert")
	if _, code, err := runSensitivityCLI(t, "--graph", "karate", "--tau", "0.5", "--save", sealed, "--ledger-key", lkey); code != 0 {
		t.Fatalf("sensitivity --save --ledger-key: exit %d: %v", code, err)
	}
	if _, code, err := runSensitivityCLI(t, "--graph", "karate", "--tau", "0.5", "--save", unsealed); code != 0 {
		t.Fatalf("sensitivity --save: exit %d: %v", code, err)
	}
	truth, err := sensitivity.LoadCertificate(sealed)
	if err != nil {
		t.Fatal(err)
	}
	sum, stderr, code := release("good", "--sensitivity-cert", sealed)
	if code != 0 || sum["delta2"] != truth.Delta2 {
		t.Fatalf("sealed certificate: exit %d, Δ2 %v (certificate %v): %s", code, sum["delta2"], truth.Delta2, stderr)
	}
	before := spent()
	editCert(t, sealed)
	for name, cert := range map[string]string{"edited": sealed, "unsealed": unsealed} {
		if _, stderr, code := release(name, "--sensitivity-cert", cert); code != exitBadInput || !strings.Contains(stderr, "MAC") {
			t.Errorf("%s certificate: exit %d, want %d naming the MAC: %s", name, code, exitBadInput, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".json")); err == nil {
			t.Errorf("%s certificate: a release file was written", name)
		}
	}
	if after := spent(); after != before {
		t.Errorf("refused certificates changed the ledger:\nbefore %s\nafter  %s", before, after)
	}

	// The cache: stored sealed by the first release, edited, then not trusted.
	cache := filepath.Join(dir, "delta2.cache")
	if sum, stderr, code := release("cache1", "--sensitivity-cache", cache); code != 0 || sum["sensitivityReused"] != false {
		t.Fatalf("first cached release: exit %d, %v: %s", code, sum, stderr)
	}
	editCert(t, cache)
	sum, stderr, code = release("cache2", "--sensitivity-cache", cache)
	if code != 0 || sum["sensitivityReused"] != false || sum["delta2"] != truth.Delta2 {
		t.Errorf("edited cache: exit %d, reused %v, Δ2 %v (true %v); want it recomputed: %s", code, sum["sensitivityReused"], sum["delta2"], truth.Delta2, stderr)
	}
	if sum, _, code := release("cache3", "--sensitivity-cache", cache); code != 0 || sum["sensitivityReused"] != true || sum["delta2"] != truth.Delta2 {
		t.Errorf("re-sealed cache: exit %d, reused %v, Δ2 %v; want the stored true Δ2 reused", code, sum["sensitivityReused"], sum["delta2"])
	}

	// A certificate at τ = 0.5 bounds Δ2 at τ = 1 (Δ2 is non-increasing in τ).
	small := filepath.Join(dir, "small.cert")
	if _, code, err := runSensitivityCLI(t, "--graph", "karate", "--tau", "0.5", "--save", small, "--ledger-key", lkey); code != 0 {
		t.Fatalf("sensitivity --save: exit %d: %v", code, err)
	}
	sum, stderr, code = release("larger-tau", "--sensitivity-cert", small, "--tau", "1")
	if code != 0 || sum["delta2"] != truth.Delta2 || sum["delta2Exact"] != false {
		t.Errorf("certificate at a smaller τ: exit %d, Δ2 %v exact %v; want the certificate's %v as an upper bound: %s",
			code, sum["delta2"], sum["delta2Exact"], truth.Delta2, stderr)
	}
}
