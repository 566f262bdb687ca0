package forecast

import "github.com/graphcloak/graphcloak/privacy"

// FillBudgetBuys sets each forecast's BudgetBuys: how many answers (an
// answer forecast) or Gaussian releases of its σ budget b buys. A
// Gaussian release is counted by its σ over Δ2, so without delta2 (nil or
// 0) only answers are; a forecast without σ is left alone.
func FillBudgetBuys(b privacy.Budget, fs []Forecast, delta2 *float64) error {
	for i := range fs {
		f := &fs[i]
		var bb privacy.BudgetBuys
		var err error
		switch {
		case f.Mode == ModeAnswer:
			bb, err = privacy.AnswersBudgetBuys(b, f.Epsilon)
		case delta2 != nil && *delta2 > 0 && f.Sigma > 0:
			bb, err = privacy.GaussianBudgetBuys(b, f.Sigma / *delta2)
		default:
			continue
		}
		if err != nil {
			return err
		}
		f.BudgetBuys = &bb
	}
	return nil
}
