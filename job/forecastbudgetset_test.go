package job

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"
)

// SetBudget counts in the totals given, or in the scope's own budget when
// one was read (with its balance and ledger); no budget leaves none; an
// answers' share alone, or a budget the ledger would not take, is refused
// naming the parameters.
func TestForecastReportSetBudget(t *testing.T) {
	flags := func(p errkind.Param) string { return "--" + string(p) }
	report := func() *ForecastReport { return &ForecastReport{Result: &forecast.EpsilonSweepResult{}} }
	totals := privacy.Budget{Epsilon: 10, Delta: 1e-5, AnswerEpsilon: 1}
	wantRho, err := totals.Rho()
	if err != nil {
		t.Fatal(err)
	}

	rep := report()
	if err := rep.SetBudget(privacy.Budget{}, nil, ""); err != nil || rep.Budget != nil {
		t.Errorf("no budget: %+v, %v; want none", rep.Budget, err)
	}
	rep = report()
	if err := rep.SetBudget(totals, nil, "ignored"); err != nil || rep.Budget == nil || rep.Budget.Budget != totals ||
		rep.Budget.RhoBudget != wantRho || rep.Budget.Scope != nil || rep.Budget.Ledger != "" {
		t.Errorf("totals: %+v, %v; want %+v at ρ_max %g", rep.Budget, err, totals, wantRho)
	}
	scope := &privacy.Balance{Scope: "s", Releases: 2, Budget: privacy.Budget{Epsilon: 4, Delta: 1e-6}}
	scopeRho, err := scope.Budget.Rho()
	if err != nil {
		t.Fatal(err)
	}
	rep = report()
	if err := rep.SetBudget(totals, scope, "ledger.json"); err != nil || rep.Budget == nil || rep.Budget.Budget != scope.Budget ||
		rep.Budget.RhoBudget != scopeRho || rep.Budget.Scope != scope || rep.Budget.Ledger != "ledger.json" {
		t.Errorf("a scope's budget: %+v, %v; want the scope's %+v from ledger.json", rep.Budget, err, scope.Budget)
	}

	for _, c := range []struct {
		name string
		b    privacy.Budget
		want errkind.Kind
		text string
	}{
		{"a share alone", privacy.Budget{AnswerEpsilon: 1}, errkind.Usage, "--answer-epsilon is a share of a budget: give --epsilon-total and --delta-total too"},
		{"a share over the total", privacy.Budget{Epsilon: 1, Delta: 1e-5, AnswerEpsilon: 2}, errkind.BadInput, "--epsilon-total/--delta-total/--answer-epsilon"},
	} {
		rep := report()
		err := rep.SetBudget(c.b, nil, "")
		if errkind.Of(err) != c.want || err == nil || !strings.Contains(errkind.Render(err, flags), c.text) || rep.Budget != nil {
			t.Errorf("%s: %v (%v), want %v naming %q", c.name, err, errkind.Of(err), c.want, c.text)
		}
	}
}

// Only a smoothed release's needed ε is labelled, with the parameter
// that asks for it and its τ′.
func TestForecastReportLabelSmoothed(t *testing.T) {
	rep := &ForecastReport{Result: &forecast.EpsilonSweepResult{Needed: []forecast.NeededEpsilon{
		{Mode: forecast.ModePerNode}, {Mode: forecast.ModePerNode, Smooth: 0.5}, {Mode: forecast.ModeAnswer}}}}
	rep.LabelSmoothed(func(p errkind.Param) string { return "--" + string(p) })
	want := []string{forecast.ModePerNode, forecast.ModePerNode + " --smooth 0.5", forecast.ModeAnswer}
	for i, n := range rep.Result.Needed {
		if n.Mode != want[i] {
			t.Errorf("needed %d: %q, want %q", i, n.Mode, want[i])
		}
	}
}
