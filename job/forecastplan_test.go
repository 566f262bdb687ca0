package job

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// karateForecast is a small ForecastSpec on the karate club and its two
// factions.
func karateForecast(tau float64, modes []string, smooth []float64) ForecastSpec {
	g, part := laplacian.Karate()
	return ForecastSpec{GraphName: "karate", CommunitiesKind: "planted",
		Simulation: forecast.Simulation{Graph: g, Partition: part, Tau: tau, Delta: 1e-5, Alpha: 1, Sources: 1, Trials: 8,
			Estimator: recovery.Default, Seed: 1},
		Epsilons: []float64{2, 4}, Modes: modes, Target: 0.5, Smooth: smooth, FitTolerance: recovery.DefaultFitTolerance}
}

// TestForecastModes: per mode and ε one forecast; each smoothed per-node
// release (0 skipped) adds its own, at the plan's τ with its τ′, and its
// needed ε carries τ′ without naming it in Mode; Δ2 is computed for the
// per-node mode only, and the answer audit passes at every ε.
func TestForecastModes(t *testing.T) {
	rep, err := Forecast(context.Background(), karateForecast(1, []string{forecast.ModePerNode, forecast.ModeAnswer}, []float64{0, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.NodeCount != 34 || rep.Relationships != 78 || rep.Graph != "karate" || rep.Communities != "planted" || rep.CommunityCount != 2 {
		t.Errorf("report header %+v", rep)
	}
	if rep.Delta2 == nil || !(*rep.Delta2 > 0) || !rep.Delta2Exact {
		t.Errorf("Δ2 %v (exact %v), want an exact positive value", rep.Delta2, rep.Delta2Exact)
	}
	var perNode, answer, smoothed int
	for _, f := range rep.Result.Forecasts {
		switch {
		case f.Mode == forecast.ModeAnswer:
			// The audit passes: the row is its exact numbers, every node a trial.
			if !f.Exact || f.Trials != 34 || f.Low != f.CommunityAccuracy || f.In90Low != f.In90Rate || len(f.ByCommunity) != 2 {
				t.Errorf("answer row at ε = %g not the audit's: %+v", f.Epsilon, f)
			}
			answer++
		case f.Smooth == 0.5 && f.Tau == 1:
			smoothed++
		case f.Smooth == 0 && f.Tau == 1:
			perNode++
		default:
			t.Errorf("unexpected forecast %s τ=%g τ′=%g", f.Mode, f.Tau, f.Smooth)
		}
	}
	if perNode != 2 || answer != 2 || smoothed != 2 {
		t.Errorf("forecasts per-node %d, answer %d, smoothed %d; want 2 each", perNode, answer, smoothed)
	}
	if len(rep.Result.Needed) != 3 {
		t.Fatalf("%d needed ε, want 3 (per-node, answer, smoothed)", len(rep.Result.Needed))
	}
	for i, n := range rep.Result.Needed {
		if want := []float64{0, 0, 0.5}[i]; n.Smooth != want || strings.Contains(n.Mode, "smooth") {
			t.Errorf("needed %d: mode %q τ′ %g, want τ′ %g and a plain mode", i, n.Mode, n.Smooth, want)
		}
	}
	if len(rep.AnswerAudits) != 2 || rep.AnswerRefused != "" {
		t.Fatalf("audits %+v, refused %q", rep.AnswerAudits, rep.AnswerRefused)
	}
	for i, a := range rep.AnswerAudits {
		if a.Epsilon != []float64{2, 4}[i] || !a.Passed || a.WorstLoss > a.Epsilon*(1+1e-9) {
			t.Errorf("audit %d: ε %g, passed %v, worst loss %g", i, a.Epsilon, a.Passed, a.WorstLoss)
		}
	}
}

// TestForecastAnswerOnly: without the per-node mode neither Δ2 nor the
// smoothed releases are computed, and at a τ the graph cannot resolve
// the audit says why answers would be refused instead of failing.
func TestForecastAnswerOnly(t *testing.T) {
	rep, err := Forecast(context.Background(), karateForecast(50, []string{forecast.ModeAnswer}, []float64{0.5}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Delta2 != nil {
		t.Errorf("Δ2 %g computed without the per-node mode", *rep.Delta2)
	}
	for _, f := range rep.Result.Forecasts {
		if f.Mode != forecast.ModeAnswer {
			t.Errorf("forecast of mode %s, τ′ %g", f.Mode, f.Smooth)
		}
	}
	if rep.AnswerRefused == "" || len(rep.AnswerAudits) != 0 {
		t.Errorf("at τ = 50: refused %q, audits %+v", rep.AnswerRefused, rep.AnswerAudits)
	}
}

// TestNewForecastBudget: a valid budget fills the budget buys of the
// answers and of the per-node releases with σ (not of those without) and
// carries its ρ_max; an invalid one is bad input naming the budget's
// parameters.
func TestNewForecastBudget(t *testing.T) {
	d2 := 0.5
	fs := []forecast.Forecast{{Mode: forecast.ModeAnswer, Epsilon: 1}, {Mode: forecast.ModePerNode, Sigma: 2}, {Mode: forecast.ModePerNode}}
	b := privacy.Budget{Epsilon: 10, Delta: 1e-5, AnswerEpsilon: 2}
	fb, err := NewForecastBudget(b, fs, &d2)
	if err != nil {
		t.Fatal(err)
	}
	if rho, _ := b.Rho(); fb.Budget != b || fb.RhoBudget != rho || !(rho > 0) {
		t.Errorf("budget %+v, want %+v with ρ_max %g", fb, b, rho)
	}
	if fs[0].BudgetBuys == nil || fs[1].BudgetBuys == nil || fs[2].BudgetBuys != nil {
		t.Errorf("budget buys %v %v %v: want the answer's and the σ release's only", fs[0].BudgetBuys, fs[1].BudgetBuys, fs[2].BudgetBuys)
	}
	_, err = NewForecastBudget(privacy.Budget{Epsilon: -1, Delta: 1e-5}, nil, nil)
	name := func(p errkind.Param) string { return "<" + string(p) + ">" }
	if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, name), "<epsilon-total>/<delta-total>/<answer-epsilon>: ") {
		t.Errorf("invalid budget: %v (kind %v)", err, errkind.Of(err))
	}
}

// Where the answer's audit ran and passed, plan's private-answer row is the
// audit's exact number (not a simulation's estimate of it: football showed
// 0.634 [0.632, 0.637] beside an audit of 0.627), marked exact, with the
// audited mechanism; its rates per community are exact over every node
// (trials = nodes), and weighted by their sizes they give the audit's
// accuracy back.
func TestForecastAnswerRowIsTheAudit(t *testing.T) {
	spec := karateForecast(1, []string{forecast.ModeAnswer}, nil)
	spec.Simulation.Trials = 50
	rep, err := Forecast(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.AnswerAudits) != 2 || len(rep.Result.Forecasts) != 2 {
		t.Fatalf("%d audits, %d forecasts; want 2 and 2", len(rep.AnswerAudits), len(rep.Result.Forecasts))
	}
	for i, a := range rep.AnswerAudits {
		f := rep.Result.Forecasts[i]
		if !a.Passed || f.Epsilon != a.Epsilon || !f.Exact || f.CommunityAccuracy != a.Accuracy || f.Low != a.Accuracy || f.High != a.Accuracy {
			t.Errorf("ε = %g: row %.6f [%.6f, %.6f] (exact %v), audit %.6f (passed %v)", a.Epsilon, f.CommunityAccuracy, f.Low, f.High, f.Exact, a.Accuracy, a.Passed)
		}
		sum, nodes := 0.0, 0
		for _, c := range f.ByCommunity {
			if c.Trials != c.Size || c.Low != c.Rate || c.High != c.Rate {
				t.Errorf("ε = %g: community %s: %+v, want every node counted and no interval", a.Epsilon, c.Community, c)
			}
			sum += c.Rate * float64(c.Size)
			nodes += c.Size
		}
		if nodes != 34 || math.Abs(sum/34-a.Accuracy) > 1e-12 {
			t.Errorf("ε = %g: rates by community average to %.9f over %d nodes, the audit's accuracy is %.9f", a.Epsilon, sum/float64(nodes), nodes, a.Accuracy)
		}
	}
}

// TestForecastDelta2FromThePass: with both modes the answer audit's pass
// runs first and Δ2 is read from its brackets, refined near the top
// (sensitivity method pass-brackets+lanczos, kept in the work cache): the
// same exact Δ2 as the sensitivity package's own scheme, within both
// brackets. With the per-node mode alone, the own scheme runs.
func TestForecastDelta2FromThePass(t *testing.T) {
	g, _, err := laplacian.Generate("pa:n=600,m=3,seed=2")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, g.N())
	for s := range part {
		part[s] = s % 4
	}
	own, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, modes := range [][]string{{forecast.ModePerNode, forecast.ModeAnswer}, {forecast.ModePerNode}} {
		spec := karateForecast(1, modes, nil)
		spec.Simulation.Graph, spec.Simulation.Partition = g, part
		spec.Cache = &WorkCache{Dir: t.TempDir(), MACKey: bytes.Repeat([]byte{7}, 32), Software: "v1"}
		rep, err := Forecast(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := spec.Cache.Sensitivity(g, 1, 1).Load(g, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := len(modes) == 2; strings.Contains(kept.Method, "pass-brackets") != want {
			t.Errorf("modes %v: Δ2 by %s", modes, kept.Method)
		}
		if rep.Delta2 == nil || !rep.Delta2Exact || *rep.Delta2 < own.Delta2-own.Slack || *rep.Delta2-kept.Slack > own.Delta2 {
			t.Errorf("modes %v: Δ2 %v (exact %v, slack %g) misses [%.15g, %.15g] (%s)", modes, rep.Delta2, rep.Delta2Exact, kept.Slack,
				own.Delta2-own.Slack, own.Delta2, own.Method)
		}
	}
}
