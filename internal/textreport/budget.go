package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// Budget prints a ledger's report: the ledger's budget on the first line
// when every scope shares it, else each scope's on its row, then a row per
// scope. A scope spent past its budget (only a ledger written before the
// answers' share can be) gets a line saying so; name says how the reader
// calls the parameters that line names. epsilon and delta price one more
// release (and answer) for each scope, under how the budget's ε's add.
func Budget(out io.Writer, r privacy.LedgerReport, epsilon, delta float64, name func(errkind.Param) string) error {
	bal := r.Scopes
	perScope := r.Budget == nil && len(bal) > 0
	switch {
	case r.Budget != nil:
		fmt.Fprintf(out, "ledger %s: budget %v per scope (ρ_max=%.6g, zCDP/CKS20, %s)\n",
			r.Ledger, *r.Budget, r.RhoBudget, answersRule(*r.Budget))
	case perScope:
		fmt.Fprintf(out, "ledger %s: each scope has its own budget (BUDGET, ρ_max; zCDP/CKS20; with ε_A, private answers Σε ≤ ε_A and ρ_max is the Gaussian releases')\n", r.Ledger)
	}
	if len(bal) == 0 {
		_, err := fmt.Fprintln(out, "no releases charged yet")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	head := "SCOPE\t"
	if perScope {
		head += "BUDGET\tRHO MAX\t"
	}
	fmt.Fprintln(tw, head+"RELEASES\tEPSILON SPENT (AT δ)\tANSWERS' EPSILON\tRHO SPENT\tRHO REMAINING (GAUSSIAN)\tEPSILON REMAINING (ANSWER)")
	var over []string
	for _, s := range bal {
		fmt.Fprintf(tw, "%s\t", s.Scope)
		if perScope {
			fmt.Fprintf(tw, "%v\t%.6g\t", s.Budget, s.RhoBudget)
		}
		fmt.Fprintf(tw, "%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", s.Releases, s.EpsilonSpent, s.PureEpsilonSpent, s.RhoSpent, s.RhoRemaining, s.AnswerEpsilonRemaining)
		if s.EpsilonSpent > s.Budget.Epsilon {
			over = append(over, s.Scope)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range bal {
		if s.Budget.AnswerDelta > 0 {
			fmt.Fprintf(out, "scope %s: answers' δ (sensor noise leaving the model) %.3g spent of δ_A=%g, %.3g left\n", s.Scope, s.AnswerDeltaSpent, s.Budget.AnswerDelta, s.AnswerDeltaRemaining)
		}
	}
	if r.Budget != nil {
		zcdpRule(out, *r.Budget, r.RhoBudget, epsilon, delta)
	}
	for _, s := range bal {
		if perScope {
			zcdpRule(out, s.Budget, s.RhoBudget, epsilon, delta)
		}
		nextCharge(out, s, epsilon, delta)
	}
	for _, s := range over {
		// Only a ledger written before the answers' share can get here:
		// its answers were admitted by the old split rule.
		fmt.Fprintf(out, "scope %s: spent past its budget by zCDP — private answers admitted by the rule before the answers' share (not valid under adaptive use, docs/guarantee.md); nothing more fits. Create a new scope with %s to keep answering.\n", s, name(privacy.ParamAnswerShare))
	}
	return nil
}

// answersRule says how budget b accounts private answers.
func answersRule(b privacy.Budget) string {
	if b.AnswerEpsilon > 0 {
		return fmt.Sprintf("for Gaussian releases; private answers Σε ≤ ε_A=%g", b.AnswerEpsilon)
	}
	return "private answers cost ρ = min(ε²/2, ε) in it (no answers' share)"
}
