package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestPlanEstimate: plan --estimate models Δ2 as sensitivity's cost model
// does (ChooseMethod: the same method, its seconds), the answer audit's pass as audit
// --estimate does ((S + C + 2R)·K·(2|E|+n) steps, every source correlated), counts the simulated releases
// (per ε: the mass curve's 9 points, up to 4 rounds each; the answer
// mode's) and prices them by trials it times, and says the audit is reused when --answer-cache holds a
// certificate that verifies.
func TestPlanEstimate(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const spec = "pa:n=1000,m=3,seed=4"
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(t.TempDir(), "answer.json")
	plan := func(extra ...string) planEstimate {
		var out, errb strings.Builder
		args := append([]string{"plan", "--graph", spec, "--tau", "1", "--epsilon", "1,4", "--trials", "50", "--estimate", "-o", "json"}, extra...)
		if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("plan --estimate: exit %d: %s", code, errb.String())
		}
		var e planEstimate
		if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return e
	}
	e := plan("--answer-cache", cert)
	// The audit's pass runs first and brackets every edge's Δ2 term: Δ2
	// is priced at its refinement of the edges near the top. The
	// calibrations and ceilings by their models, per ε.
	d2, cal, ceil := stepNamed(e, "Δ2 at τ = 1"), stepNamed(e, "answer calibrations"), stepNamed(e, "routed ceilings")
	if len(e.Steps) != 5 || e.Steps[0].Step != "answer audit" || d2.Seconds != cost.PassDelta2Seconds || !strings.HasPrefix(d2.Model, "from the answer audit's pass") {
		t.Fatalf("steps %+v; want the audit first, then Δ2 from its pass", e.Steps)
	}
	// The calibrations priced together (privacy.CalibrationSeconds of
	// both ε, on plan's own Leiden partition) with an audit over every
	// edge each, as their model says.
	var calEps int
	var calAll, auditEach float64
	_, errCal := fmt.Sscanf(cal.Model, "%d ε at %g s calibrating in all", &calEps, &calAll)
	if i := strings.Index(cal.Model, ") and "); i >= 0 && errCal == nil {
		_, errCal = fmt.Sscanf(cal.Model[i:], ") and %g s auditing", &auditEach)
	}
	if errCal != nil || calEps != 2 || !(calAll > 0) || !(auditEach > 0) || math.Abs(cal.Seconds-calAll-2*auditEach) > 5e-3*cal.Seconds {
		t.Errorf("calibrations %+v (%v): want 2 ε calibrated and audited", cal, errCal)
	}
	// The ceilings at the work counted on that partition
	// (forecast.CountCeilingWork), told to three digits.
	var perEps float64
	var eps int
	_, err = fmt.Sscanf(ceil.Model, "%d ε at %g s", &eps, &perEps)
	if err != nil || eps != 2 || math.Abs(ceil.Seconds-2*perEps) > 5e-3*ceil.Seconds || !(ceil.Seconds > 0) {
		t.Errorf("ceilings %+v (%v); want 2 ε", ceil, err)
	}
	a := e.Steps[0].Audit
	if e.Steps[0].Step != "answer audit" || a == nil || a.Steps != 2*float64(a.Sources)*float64(a.ChebyshevDegree)*float64(2*g.NumEdges()+g.N()) || a.Sources != g.N()+256 {
		t.Errorf("the audit's model: %+v", e.Steps[0])
	}
	// The simulations: at most 2 ε × 9 masses × 4 rounds × 50 trials,
	// priced as foreseen (the masses and rounds the curves will take,
	// drawn once on one pool and scored at each mass and ε; forecast's
	// TestForeseeMassCurvesAgainstTheCurves checks the count), or, where
	// the foresight runs past its bound, every mass at 2 rounds; the
	// answer's rows are its audit's, no trials.
	pn := stepNamed(e, "per-node forecasts")
	foreseen := regexp.MustCompile(`^[1-9] of 9 masses on one pool of [0-9]+ rounds × 50 trials drawn once at .*, [0-9]+ rounds scored over 2 ε at `).MatchString(pn.Model)
	every := strings.HasPrefix(pn.Model, "one pool of 2 rounds × 50 trials drawn once at ") && strings.Contains(pn.Model, "; at each of 2 ε ")
	if e.Simulations != 2*9*4*50 || pn.Step != "per-node forecasts" || !(pn.Seconds > 0) || !foreseen && !every {
		t.Errorf("%d simulations (want %d), %+v", e.Simulations, 2*9*4*50, pn)
	}
	sum := 0.0
	for _, st := range e.Steps {
		sum += st.Seconds
	}
	if e.Seconds != sum || len(e.Steps) != 5 {
		t.Errorf("%g s in all, the steps sum to %g", e.Seconds, sum)
	}
	if code := runArgs(context.Background(), []string{"audit", "--graph", spec, "--tau", "1", "--save", cert}, new(strings.Builder), new(strings.Builder)); code != 0 {
		t.Fatalf("audit: exit %d", code)
	}
	// With a certificate that verifies no pass runs (the calibrations
	// still do: audit keeps none): Δ2 is its own
	// scheme's, as sensitivity --dry-run models it.
	want := sensitivity.ChooseMethod(g, 1, sensitivity.Options{})
	if e := plan("--answer-cache", cert); e.Steps[0].Seconds != 0 || !strings.HasPrefix(e.Steps[0].Model, "reused") ||
		stepNamed(e, "answer calibrations").Seconds != cal.Seconds || !(stepNamed(e, "Δ2 at τ = 1").Seconds > want.Seconds/2 && stepNamed(e, "Δ2 at τ = 1").Seconds < 2*want.Seconds) ||
		!strings.HasPrefix(stepNamed(e, "Δ2 at τ = 1").Model, want.Name()) {
		t.Errorf("with a certificate that verifies: %+v; want Δ2 about %g s by %s", e.Steps, want.Seconds, want.Name())
	}
}

// TestPlanEstimateKnowsTheCache (issue 61: plan --estimate priced work
// --cache-dir holds): after a plan, plan --estimate on the same cache
// directory prices Δ2, the answer's certificate and every ε's forecasts at
// 0 (reused), 0 s in all; with one ε more it prices that ε's answer
// calibration and edge audit (its row is the audit's), per-node forecasts
// and routed ceiling, nothing else.
func TestPlanEstimateKnowsTheCache(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	args := []string{"plan", "--graph", "pa:n=600,m=3,seed=2", "--tau", "1", "--trials", "20", "--cache-dir", dir, "-o", "json"}
	estimate := func(eps string) planEstimate {
		var out, errb strings.Builder
		if code := runArgs(context.Background(), append(args, "--epsilon", eps, "--estimate"), &out, &errb); code != 0 {
			t.Fatalf("plan --estimate: exit %d: %s", code, errb.String())
		}
		var e planEstimate
		if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return e
	}
	before := estimate("1,4")
	if before.Seconds <= 0 {
		t.Fatalf("before any plan: %+v", before)
	}
	if code := runArgs(context.Background(), append(args, "--epsilon", "1,4"), new(strings.Builder), new(strings.Builder)); code != 0 {
		t.Fatalf("plan: exit %d", code)
	}
	after := estimate("1,4")
	if after.Seconds != 0 || after.Simulations != 0 || len(after.Steps) != 4 {
		t.Fatalf("after the plan: %+v; want every step reused, 0 s", after)
	}
	for _, st := range after.Steps {
		if st.Seconds != 0 || !strings.HasPrefix(st.Model, "reused") {
			t.Errorf("after the plan: %+v", st)
		}
	}
	more := estimate("1,2,4")
	var priced []string
	forecasts := ""
	for _, st := range more.Steps {
		if st.Seconds > 0 {
			priced = append(priced, st.Step)
		}
		if st.Step == "per-node forecasts" {
			forecasts = st.Model
		}
	}
	if strings.Join(priced, ",") != "answer calibrations,per-node forecasts,routed ceilings" || !strings.Contains(forecasts, "at each of 1 ε") {
		t.Errorf("with one ε more: priced %v (%+v)", priced, more.Steps)
	}
}

// stepNamed returns e's step of that name (the zero step when it has none).
func stepNamed(e planEstimate, name string) estimateStep {
	for _, st := range e.Steps {
		if st.Step == name {
			return st
		}
	}
	return estimateStep{}
}

// TestPlanEstimateDrawsNoTrial (issue 79: plan --estimate took 7.8 s on
// astro-ph where its help says ~0.3 s): --estimate prices the per-node
// forecasts' trials at the step rate, as plan's first line does — every
// mass at 2 rounds — and draws none: no pilot's block of trials is timed
// (its model would say "timed on a block of … trials of this graph").
func TestPlanEstimateDrawsNoTrial(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb strings.Builder
	args := []string{"plan", "--graph", "pa:n=300,m=3,seed=4", "--tau", "1", "--epsilon", "1,4", "--trials", "50", "--estimate", "-o", "json"}
	if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("plan --estimate: exit %d: %s", code, errb.String())
	}
	var e planEstimate
	if err := json.Unmarshal([]byte(out.String()), &e); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	pn := stepNamed(e, "per-node forecasts")
	if !strings.HasPrefix(pn.Model, "one pool of 2 rounds × 50 trials drawn once at ") || strings.Contains(pn.Model, "timed on a block") || !(pn.Seconds > 0) {
		t.Errorf("per-node forecasts %+v; want them priced at the step rate, no trial drawn", pn)
	}
}
