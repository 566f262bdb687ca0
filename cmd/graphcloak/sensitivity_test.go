package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func runSensitivityCLI(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	return runPrivacyCLI(t, append([]string{"sensitivity"}, args...)...)
}

func TestSensitivityGraphJSON(t *testing.T) {
	for _, method := range []string{"auto", "dense", "sparse", "columns", "lanczos"} {
		out, code, err := runSensitivityCLI(t, "--graph", "complete:n=6", "--tau", "0.5", "--alpha", "2", "--method", method, "-o", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", method, code, err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", method, err, out)
		}
		for _, k := range []string{"delta2", "certified", "exact", "method", "slack", "nodeCount", "relationshipCount", "components", "tau", "alpha", "kappa2", "seconds"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%s: key %q missing", method, k)
			}
		}
		// Closed form for K_n (derived in docs/derivations.md §3): Δ2 = α√2 e^{−τn}.
		want := 2 * math.Sqrt2 * math.Exp(-0.5*6)
		d2, slack := r["delta2"].(float64), r["slack"].(float64)
		if want > d2 || want < d2-slack-1e-15 {
			t.Errorf("%s: delta2 %v slack %v, closed form %v", method, d2, slack, want)
		}
		if r["certified"] != true || r["nodeCount"].(float64) != 6 || r["relationshipCount"].(float64) != 15 || r["tau"].(float64) != 0.5 || r["alpha"].(float64) != 2 {
			t.Errorf("%s: %v", method, r)
		}
		// kappa2 is e^{τ n} on the dense path, null on the sparse one.
		if method == "sparse" || method == "columns" || method == "lanczos" {
			if r["kappa2"] != nil {
				t.Errorf("sparse kappa2 = %v, want null", r["kappa2"])
			}
		} else if k := r["kappa2"].(float64); math.Abs(k-math.Exp(3)) > 1e-9*k {
			t.Errorf("kappa2 = %v, want e^3", k)
		}
	}
}

func TestSensitivityLineJSON(t *testing.T) {
	out, code, err := runSensitivityCLI(t, "--line", "--n", "40", "--m", "30", "--T", "0.02", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// Brute force from the kernel's definition.
	g := func(x float64) float64 { return math.Exp(-x*x/(4*0.02)) / math.Sqrt(4*math.Pi*0.02) }
	best := 0.0
	for j := 1; j < 40; j++ {
		s := 0.0
		for i := 1; i <= 30; i++ {
			d := g(float64(i)/30-float64(j)/40) - g(float64(i)/30-float64(j+1)/40)
			s += d * d
		}
		best = math.Max(best, 40*math.Sqrt(s))
	}
	if d2 := r["delta2"].(float64); best > d2 || best < d2-r["slack"].(float64)-1e-12 {
		t.Errorf("delta2 %v, brute force %v", d2, best)
	}
	if r["tau"] != 0.02 || r["n"].(float64) != 40 || r["m"].(float64) != 30 || r["T"] != nil || r["method"] != "heat-kernel-1d" {
		t.Errorf("%v", r)
	}
}

func TestSensitivityTable(t *testing.T) {
	out, code, err := runSensitivityCLI(t, "--graph", "path:n=5", "--tau", "1")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, want := range []string{"delta2", "dense-eigen", "kappa2", "maximising pair"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// An upper bound that is not exact shows its proven bracket and ratio;
// an exact value shows none.
func TestSensitivityTableRange(t *testing.T) {
	out, code, err := runSensitivityCLI(t, "--graph", "karate", "--tau", "1")
	if code != 0 || strings.Contains(out, "proven range") {
		t.Errorf("exact: exit %d (%v), table shows a range:\n%s", code, err, out)
	}
	// The bound phase always runs, so a 1 ns budget leaves a loose but
	// deterministic bracket.
	loose := []string{"--graph", "pa:n=1000,m=5", "--tau", "1", "--method", "sparse", "--time-budget", "1ns"}
	js, code, err := runSensitivityCLI(t, append(loose, "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	upper, lower := r["delta2"].(float64), r["delta2"].(float64)-r["slack"].(float64)
	if r["exact"] != false || !(lower > 0) {
		t.Fatalf("%v: exact %v, proven lower bound %v; the test needs a loose bound with a positive lower end", loose, r["exact"], lower)
	}
	out, code, err = runSensitivityCLI(t, loose...)
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var lo, hi, ratio float64
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "proven range"); ok {
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "[%g, %g] (the bound is at most %g×", &lo, &hi, &ratio); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
	}
	if math.Abs(lo-lower) > 1e-5*lower || math.Abs(hi-upper) > 1e-5*upper || math.Abs(ratio-upper/lower) > 1e-2*upper/lower {
		t.Errorf("table range [%g, %g] ratio %g; JSON gives [%g, %g] ratio %g:\n%s", lo, hi, ratio, lower, upper, upper/lower, out)
	}
}

// With --time-budget the dry run says whether the modelled run fits in
// it, and a run whose budget it says is too short is indeed not exact.
func TestSensitivityDryRunBudget(t *testing.T) {
	args := []string{"--graph", "grid:rows=60,cols=60", "--tau", "1", "--dense-limit", "0"}
	for _, c := range []struct {
		budget string
		exact  bool
	}{{"1h", true}, {"1ns", false}} {
		a := append(append([]string{}, args...), "--time-budget", c.budget)
		out, code, err := runSensitivityCLI(t, append(a, "--dry-run")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", c.budget, code, err)
		}
		fits := strings.Contains(out, "the modelled run fits")
		short := strings.Contains(out, "will be a proven upper bound")
		if fits != c.exact || short == c.exact {
			t.Errorf("--time-budget %s: dry run says fits %v, too short %v:\n%s", c.budget, fits, short, out)
		}
		js, code, err := runSensitivityCLI(t, append(a, "--dry-run", "-o", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", c.budget, code, err)
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			t.Fatal(err)
		}
		d, _ := time.ParseDuration(c.budget)
		if p["timeBudgetSeconds"] != d.Seconds() {
			t.Errorf("--time-budget %s: timeBudgetSeconds %v", c.budget, p["timeBudgetSeconds"])
		}
		js, code, err = runSensitivityCLI(t, append(a, "-o", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", c.budget, code, err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		if r["exact"] != c.exact {
			t.Errorf("--time-budget %s: the run's exact is %v, its dry run said %v", c.budget, r["exact"], c.exact)
		}
	}
	// The dense method ignores the budget, and its dry run says so.
	dense := []string{"--graph", "complete:n=6", "--tau", "1", "--time-budget", "1ns"}
	out, _, _ := runSensitivityCLI(t, append(dense, "--dry-run")...)
	js, _, _ := runSensitivityCLI(t, append(dense, "-o", "json")...)
	if !strings.Contains(out, "ignored by the dense method") || !strings.Contains(js, `"exact": true`) {
		t.Errorf("dense under a 1 ns budget: dry run\n%s\nrun\n%s", out, js)
	}
	js, _, _ = runSensitivityCLI(t, append(args, "--dry-run", "-o", "json")...)
	if strings.Contains(js, "timeBudgetSeconds") {
		t.Errorf("no --time-budget, yet the dry run names one:\n%s", js)
	}
}

func TestSensitivityBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		name string // must appear in the message
	}{
		{[]string{"--graph", "complete:n=5", "--tau", "0"}, exitBadInput, "tau"},
		{[]string{"--graph", "complete:n=5", "--tau", "-1"}, exitBadInput, "tau"},
		{[]string{"--graph", "complete:n=5", "--tau", "NaN"}, exitBadInput, "tau"},
		{[]string{"--graph", "complete:n=5", "--tau", "+Inf"}, exitBadInput, "tau"},
		{[]string{"--graph", "complete:n=5", "--tau", "1", "--alpha", "0"}, exitBadInput, "alpha"},
		{[]string{"--graph", "complete:n=5", "--tau", "1", "--alpha", "-3"}, exitBadInput, "alpha"},
		{[]string{"--graph", "complete:n=5", "--tau", "1", "--dense-limit", "-1"}, exitBadInput, "dense-limit"},
		{[]string{"--graph", "complete:n=0", "--tau", "1"}, exitBadInput, "graph"},
		{[]string{"--graph", "nosuchkind:n=3", "--tau", "1"}, exitBadInput, "graph"},
		{[]string{"--graph", "file:/nonexistent/edges.csv", "--tau", "1"}, exitBadInput, "graph"},
		{[]string{"--graph", "path:n=3000", "--tau", "1", "--method", "dense", "--dense-limit", "100"}, exitBadInput, "dense"},
		{[]string{"--line", "--n", "0", "--m", "5", "--T", "1"}, exitBadInput, "n"},
		{[]string{"--line", "--n", "5", "--m", "-2", "--T", "1"}, exitBadInput, "m"},
		{[]string{"--line", "--n", "5", "--m", "5", "--T", "0"}, exitBadInput, "T"},
		{[]string{"--line", "--n", "5", "--m", "5", "--T", "1", "--alpha", "NaN"}, exitBadInput, "alpha"},
		{[]string{"--graph", "complete:n=5", "--tau", "1", "--method", "magic"}, exitUsage, "method"},
		{[]string{}, exitUsage, "graph"},
		{[]string{"--line", "--n", "5", "--m", "5"}, exitUsage, "tau"},
		{[]string{"--line", "--graph", "karate", "--n", "5", "--m", "5", "--T", "1"}, exitUsage, "line"},
		{[]string{"--line", "--n", "5", "--m", "5", "--T", "1", "--tau", "1"}, exitUsage, "tau"},
		{[]string{"--graph", "karate", "--tau", "1", "--n", "5"}, exitUsage, "n"},
		{[]string{"--graph", "karate", "--tau", "1", "extra"}, exitUsage, "argument"},
		{[]string{"--graph", "karate", "--tau", "abc"}, exitUsage, "tau"},
	} {
		_, code, err := runSensitivityCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d (%v), want %d", c.args, code, err, c.code)
			continue
		}
		if !strings.Contains(err.Error(), c.name) {
			t.Errorf("%v: message %q does not name %q", c.args, err, c.name)
		}
	}
}

// The dry run names the method the run then uses (dense, the Chebyshev
// columns without hubs, Lanczos with a hub), reports a positive time and
// memory estimate, computes no Δ2, and refuses --save. The run
// computes (--cache-dir none): a Δ2 the store kept would be reused.
func TestSensitivityDryRunAgreesWithRun(t *testing.T) {
	for _, c := range []struct{ graph, want, run string }{
		{"complete:n=6", "dense", "dense-eigen"},
		{"grid:rows=60,cols=60", "columns", "bound-and-refine"},
		{"star:n=400", "lanczos", "lanczos-edges"},
	} {
		// --cache-dir none: the run computes, whatever another test kept.
		args := []string{"--graph", c.graph, "--tau", "1", "-o", "json", "--cache-dir", "none"}
		if c.want != "dense" {
			args = append(args, "--dense-limit", "0")
		}
		out, code, err := runSensitivityCLI(t, append(args, "--dry-run")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", c.graph, code, err)
		}
		var p map[string]any
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%s: %v\n%s", c.graph, err, out)
		}
		if p["dryRun"] != true || p["method"] != c.want || p["delta2"] != nil {
			t.Errorf("%s: dry run %v, want method %s and no delta2", c.graph, p, c.want)
		}
		if s, b := p["secondsEstimate"].(float64), p["bytesEstimate"].(float64); !(s > 0) || !(b > 0) {
			t.Errorf("%s: estimates %v s, %v bytes", c.graph, s, b)
		}
		out, code, err = runSensitivityCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %v", c.graph, code, err)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r["method"] != c.run {
			t.Errorf("%s: the run used %v, its dry run said %s", c.graph, r["method"], c.want)
		}
	}
	if _, code, _ := runSensitivityCLI(t, "--graph", "karate", "--dry-run", "--save", t.TempDir()+"/c.json"); code != 2 {
		t.Errorf("--dry-run --save: exit %d, want 2 (usage)", code)
	}
}
