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
	c, err := privacy.LoadCertificate(cert)
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
		"tau":   {"--graph", "karate", "--tau", "0.6"},
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
