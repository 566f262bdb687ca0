package forecast

import (
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// Answers are counted by their ε, Gaussian releases by σ/Δ2 (only with a
// Δ2), and a forecast without σ is left alone; each count is privacy's.
func TestFillBudgetBuys(t *testing.T) {
	b := privacy.Budget{Epsilon: 10, Delta: 1e-5}
	delta2 := 0.5
	fs := []Forecast{{Mode: ModeAnswer, Epsilon: 1}, {Mode: ModePerNode, Sigma: 2}, {Mode: ModePerNode}}
	if err := FillBudgetBuys(b, fs, &delta2); err != nil {
		t.Fatal(err)
	}
	answers, _ := privacy.AnswersBudgetBuys(b, 1)
	gaussian, _ := privacy.GaussianBudgetBuys(b, 2/delta2)
	for i, want := range []*privacy.BudgetBuys{&answers, &gaussian, nil} {
		switch got := fs[i].BudgetBuys; {
		case (got == nil) != (want == nil):
			t.Errorf("forecast %d: budget buys %v, want %v", i, got, want)
		case got != nil && *got != *want:
			t.Errorf("forecast %d: budget buys %+v, want %+v", i, *got, *want)
		}
	}
	fs = []Forecast{{Mode: ModePerNode, Sigma: 2}}
	if err := FillBudgetBuys(b, fs, nil); err != nil || fs[0].BudgetBuys != nil {
		t.Errorf("without Δ2: %v, %v; want a release left uncounted", fs[0].BudgetBuys, err)
	}
}
