package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// karateMassReadings writes the readings of a source of the given mass at
// node key src after τ = 1: exp(−L)·mass·e_src.
func karateMassReadings(t *testing.T, path string, src int, mass float64) string {
	t.Helper()
	g, _ := laplacian.Karate()
	act, err := expm.NewAction(g, 1, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	i, _ := g.IndexOf(strconv.Itoa(src))
	f0[i] = mass
	act.Apply(y, f0, 1)
	var b strings.Builder
	b.WriteString("node,value\n")
	for j, v := range y {
		fmt.Fprintf(&b, "%s,%s\n", g.Key(j), strconv.FormatFloat(v, 'g', -1, 64))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkExactNode checks an exact node's numbers against the release's Δ2
// and σ: its Gaussian ε is where the Gaussian mechanism of sensitivity
// (m/α)·Δ2 and this σ reaches δ (Balle–Wang's δ(μ, ε) at μ computed here),
// the proven ε is at least that, and private says ε ≤ 10 and the mass ≤
// the threshold mass.
func checkExactNode(t *testing.T, what string, e privacy.ExactNode, delta2, sigma float64) {
	t.Helper()
	mu := e.Mass / e.Alpha * delta2 / sigma
	if d := privacy.GaussianDelta(mu, e.GaussianEpsilon); math.Abs(d-e.Delta) > 1e-3*e.Delta {
		t.Errorf("%s: δ(μ = %g, ε = %g) = %g, want the release's δ %g", what, mu, e.GaussianEpsilon, d, e.Delta)
	}
	if e.Epsilon < e.GaussianEpsilon || e.Private != (e.Epsilon <= privacy.ExactNodeLimit) || e.Private != (e.Mass <= e.NotPrivateAbove) {
		t.Errorf("%s: %+v is inconsistent", what, e)
	}
}

// TestExactNodeOnTheCommandLine: a 30-unit source on karate at ε = 4 —
// locate on its release, the dry run with --source-mass 30 — says the
// exact node is NOT private (text and JSON); the dry run without a mass and
// locate on a one-unit release say what is protected (one unit moved one
// hop at the release's ε) and from which mass on the node is not; plan's
// per-node row says it at every mass of its curve.
func TestExactNodeOnTheCommandLine(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger, "--epsilon-total", "100", "--delta-total", "1e-3")
	common := []string{"--graph", "karate", "--tau", "1", "--epsilon", "4", "--delta", "1e-5"}
	run := func(args ...string) string {
		t.Helper()
		out, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
	heavy := karateMassReadings(t, filepath.Join(dir, "heavy.csv"), 1, 30)
	unit := karateMassReadings(t, filepath.Join(dir, "unit.csv"), 1, 1)

	// The dry run: at --source-mass 30, and at one protected unit.
	var dry30, dry1 job.ReleaseSummary
	for _, c := range []struct {
		sum   *job.ReleaseSummary
		extra []string
	}{{&dry30, []string{"--source-mass", "30"}}, {&dry1, nil}} {
		args := append(append([]string{"release", "--values", heavy, "--ledger", ledger, "--out", filepath.Join(dir, "dry.json"),
			"--dry-run", "--forecast-trials", "20"}, common...), c.extra...)
		out := run(append(args, "-o", "json")...)
		validate(t, "release", out)
		if err := json.Unmarshal([]byte(out), c.sum); err != nil {
			t.Fatal(err)
		}
		if c.sum.ExactNode == nil {
			t.Fatalf("dry run %v: no exactNode:\n%s", c.extra, out)
		}
		checkExactNode(t, fmt.Sprintf("dry run %v", c.extra), *c.sum.ExactNode, c.sum.Delta2, c.sum.Sigma)
		table := run(args...)
		want := "its exact node is NOT private"
		if c.extra == nil {
			want = "one protected unit moved one hop: ε = 4 at δ = 1e-05 — its exact node is private at that ε"
		}
		if !strings.Contains(table, "exact node") || !strings.Contains(table, want) {
			t.Errorf("dry run %v: the table does not say %q:\n%s", c.extra, want, table)
		}
	}
	above := dry1.ExactNode.NotPrivateAbove
	if e := dry30.ExactNode; e.Mass != 30 || e.Private || !(e.Epsilon > 100) {
		t.Errorf("dry run at 30 units: %+v; want ε in the hundreds, NOT private", *e)
	}
	if e := dry1.ExactNode; e.Mass != 1 || !e.Private || math.Abs(e.Epsilon-4) > 1e-6 || !(above > 1 && above < 30) {
		t.Errorf("dry run at one unit: %+v; want the release's ε = 4, private, not private above a mass in (1, 30)", *e)
	}

	// locate on the released readings of 30 units and of one.
	var releaseSigma float64 // the release's own σ, grid widening included
	for _, c := range []struct {
		name, values string
		heavy        bool
	}{{"30 units", heavy, true}, {"1 unit", unit, false}} {
		rel := filepath.Join(dir, c.name+".json")
		run(append([]string{"release", "--values", c.values, "--ledger", ledger, "--out", rel}, common...)...)
		out := run("locate", "--graph", "karate", "--release", rel, "--forecast-trials", "20", "-o", "json")
		validate(t, "locate", out)
		var sum job.LocateSummary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatal(err)
		}
		e, m := sum.ExactNode, sum.SourceMass
		if e == nil || m == nil {
			t.Fatalf("%s: no exactNode or sourceMass:\n%s", c.name, out)
		}
		checkExactNode(t, c.name, *e, 0.356418, sum.Sigma) // karate's Δ2 at τ = 1 (the dry run's)
		releaseSigma = sum.Sigma
		want := m.Low
		if want == 0 {
			want = 1
		}
		if e.Mass != want {
			t.Errorf("%s: the exact node at %g units; want the mass's lower bound, or one unit where it is 0: %g", c.name, e.Mass, want)
		}
		if c.heavy && (e.Private || !(m.Low > above)) {
			t.Errorf("%s: lower bound %g, exact node %+v; want NOT private", c.name, m.Low, *e)
		}
		table := run("locate", "--graph", "karate", "--release", rel, "--forecast-trials", "20")
		says := strings.Contains(table, "its exact node is NOT private")
		if says == e.Private || !strings.Contains(table, fmt.Sprintf("above %.3g units", above)) {
			t.Errorf("%s: exact node private %v, the table says NOT private %v or misses the threshold %.3g:\n%s", c.name, e.Private, says, above, table)
		}
	}

	// plan: the per-node row's curve.
	out := run("plan", "--graph", "karate", "--tau", "1", "--epsilon", "4", "--delta", "1e-5", "--modes", "per-node",
		"--trials", "20", "--cache-dir", "none", "-o", "json")
	validate(t, "plan", out)
	var rep job.ForecastReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	f := rep.Result.Forecasts[0]
	grid := forecast.MassGrid()
	if len(f.ExactNode) != len(grid) {
		t.Fatalf("plan: %d exact-node points, want one per mass of %v", len(f.ExactNode), grid)
	}
	for i, e := range f.ExactNode {
		if e.Mass != grid[i] {
			t.Errorf("plan: point %d at %g units, want %g", i, e.Mass, grid[i])
		}
		// plan reads the curve at the release's own calibration (the
		// grid's widening included), the σ the release drew at.
		checkExactNode(t, fmt.Sprintf("plan at %g units", e.Mass), e, *rep.Delta2, releaseSigma)
	}
	if th := f.ExactNode[0].NotPrivateAbove; math.Abs(th-above) > 1e-9*above {
		t.Errorf("plan: not private above %g units, the dry run %g", th, above)
	}
	table := run("plan", "--graph", "karate", "--tau", "1", "--epsilon", "4", "--delta", "1e-5", "--modes", "per-node", "--trials", "20", "--cache-dir", "none")
	at := func(mass float64) float64 { // the JSON's ε at mass
		for _, e := range f.ExactNode {
			if e.Mass == mass {
				return e.Epsilon
			}
		}
		t.Fatalf("plan: no exact-node point at %g units", mass)
		return 0
	}
	if want := fmt.Sprintf("per-node at ε = 4, exact node by source mass (units: ε per hop at δ = 1e-05): 0.1: %.3g · 1: %.3g · 10: %.3g", at(0.1), at(1), at(10)); !strings.Contains(table, want) ||
		!strings.Contains(table, fmt.Sprintf("NOT private above %.3g units", above)) {
		t.Errorf("plan: the table does not say the exact node's privacy by mass:\n%s", table)
	}
}
