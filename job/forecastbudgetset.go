package job

import (
	"fmt"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// SetBudget fills the report's Budget: what budget b buys of each of its
// forecasts (NewForecastBudget) — or, when scope is set, what the scope's
// own budget buys, with what the scope has spent and the ledger it was
// read from (so no totals need retyping). A zero budget leaves Budget nil;
// an answers' share alone (no totals) is a usage error.
func (rep *ForecastReport) SetBudget(b privacy.Budget, scope *privacy.Balance, ledger string) error {
	if scope != nil {
		b = scope.Budget
	}
	switch {
	case b.IsZero():
		return nil
	case b.Epsilon == 0 && b.Delta == 0:
		return errkind.Usagef("%s is a share of a budget: give %s and %s too", ParamAnswerEpsilon, ParamEpsilonTotal, ParamDeltaTotal)
	}
	var err error
	if rep.Budget, err = NewForecastBudget(b, rep.Result.Forecasts, rep.Delta2); err != nil {
		return err
	}
	if scope != nil {
		rep.Budget.Scope, rep.Budget.Ledger = scope, ledger
	}
	return nil
}

// LabelSmoothed labels each smoothed release's needed ε with the
// smoothing that asks for it (its mode, then name(ParamSmooth) τ′), as
// the report's reader asks for that release.
func (rep *ForecastReport) LabelSmoothed(name func(errkind.Param) string) {
	for i := range rep.Result.Needed {
		if n := &rep.Result.Needed[i]; n.Smooth > 0 {
			n.Mode += fmt.Sprintf(" %s %g", name(ParamSmooth), n.Smooth)
		}
	}
}
