package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// flag names a parameter as a reader's program would.
func flag(p errkind.Param) string { return "<" + string(p) + ">" }

func planReport() *job.ForecastReport {
	d2, eps := 0.25, 2.0
	return &job.ForecastReport{Graph: "karate", NodeCount: 34, Relationships: 78, Communities: "leiden", CommunityCount: 4, Tau: 1,
		Delta2: &d2, Delta2Exact: true,
		Result: &forecast.EpsilonSweepResult{
			Forecasts: []forecast.Forecast{{Mode: forecast.ModePerNode, Mechanism: "discrete", Epsilon: 1}},
			Needed: []forecast.NeededEpsilon{
				{Mode: "per-node", Mechanism: "discrete", Target: 0.8, Epsilon: &eps, Reached: true, Forecast: forecast.Forecast{CommunityAccuracy: 0.85}},
				{Mode: "private-answer", Target: 0.8, Forecast: forecast.Forecast{CommunityAccuracy: 0.6}},
			}},
		AnswerAudits: []job.AnswerAuditAt{
			{Epsilon: 1, Audit: &answer.Audit{Passed: true, SourcesChecked: 34, EdgesChecked: 78}},
			{Epsilon: 4, Audit: &answer.Audit{Passed: false}},
		}}
}

// TestPlanReport: the graph line with Δ2 and whether it is exact, the
// forecast table, one line per answer audit with its verdict, and one per
// target, reached or not.
func TestPlanReport(t *testing.T) {
	rep := planReport()
	var b bytes.Buffer
	if err := Plan(&b, rep, flag); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if want := "graph karate (34 nodes, 78 relationships), 4 communities (leiden), τ = 1, Δ2 = 0.25 (exact)"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "MODE") || !strings.HasPrefix(lines[2], "per-node") {
		t.Errorf("no forecast table after the graph line:\n%s", got)
	}
	for i, want := range []string{"answer audit ε = 1: 34 sources fitted", "answer audit ε = 4:", "target 0.80: per-node (discrete) reaches it at ε = 2", "target 0.80: private-answer does not reach it"} {
		if !strings.HasPrefix(lines[3+i], want) {
			t.Errorf("line %d %q, want prefix %q", 3+i, lines[3+i], want)
		}
	}
	if !strings.HasSuffix(lines[3], ": passed; every source's noiseless readings answered with its community 0.000 of the time") || !strings.Contains(lines[4], "FAILED") {
		t.Errorf("audit verdicts:\n%s\n%s", lines[3], lines[4])
	}
	if strings.Contains(got, "budget") || strings.Contains(got, "<") {
		t.Errorf("a plan without a budget speaks of one:\n%s", got)
	}

	rep.Delta2Exact, rep.AnswerAudits, rep.AnswerRefused = false, nil, "τ too large"
	b.Reset()
	if err := Plan(&b, rep, flag); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "Δ2 = 0.25 (proven upper bound)") || !strings.Contains(got, "private answers would be refused at this τ: τ too large\n") {
		t.Errorf("bound and refusal:\n%s", got)
	}
}

// TestPlanBudget: a budget with an answers' share states both rules; one
// without states zCDP and the parameter that plans a share, by the
// reader's name; a scope read from a ledger is stated first.
func TestPlanBudget(t *testing.T) {
	for _, c := range []struct {
		budget      job.ForecastBudget
		want, avoid []string
	}{
		{job.ForecastBudget{Budget: privacy.Budget{Epsilon: 10, Delta: 1e-5, AnswerEpsilon: 2}, RhoBudget: 1.2},
			[]string{"budget ε=10, δ=1e-05, answers' ε_A=2: answers while Σε ≤ 2, Gaussian releases while Σρ ≤ 1.2 (CKSRho(8, 1e-05))\n"}, []string{"to plan a share", "scope"}},
		{job.ForecastBudget{Budget: privacy.Budget{Epsilon: 10, Delta: 1e-5}, RhoBudget: 1.5},
			[]string{"no answers' share", "ρ = min(ε²/2, ε) (<answer-epsilon> to plan a share)\n"}, []string{"scope"}},
		{job.ForecastBudget{Budget: privacy.Budget{Epsilon: 10, Delta: 1e-5}, RhoBudget: 1.5, Ledger: "/l.json", Scope: &privacy.Balance{Scope: "b7", Releases: 3}},
			[]string{"scope b7 of ledger /l.json: 3 releases charged", "(BUDGET BUYS counts a fresh scope of its budget)\nbudget ε=10"}, nil},
	} {
		rep := planReport()
		rep.Budget = &c.budget
		var b bytes.Buffer
		if err := Plan(&b, rep, flag); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("budget %+v: want %q in\n%s", c.budget, w, got)
			}
		}
		for _, w := range c.avoid {
			if strings.Contains(got, w) {
				t.Errorf("budget %+v: %q should not appear in\n%s", c.budget, w, got)
			}
		}
	}
}
