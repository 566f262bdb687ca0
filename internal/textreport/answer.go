package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// paramOnMismatch is what readings outside the answer's model get
// (answer.Request.OnMismatch), named as the library's errors name it.
const paramOnMismatch errkind.Param = "on-mismatch"

// Answer prints a private answer: the published community, the audit, the
// mechanism and its charge, the balance, the public posterior an analyst
// reads and the forecast. A dry run's summary is its plan (AnswerPlan).
// name says how the reader calls the parameters a warning names.
func Answer(out io.Writer, s *job.AnswerSummary, name func(errkind.Param) string) error {
	if s.DryRun {
		return AnswerPlan(out, s)
	}
	a := s.Answer
	c := a.Calibration
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships; %d communities (%s)\n", s.Graph, s.NodeCount, s.RelationshipCount, c.K, s.Communities)
	fmt.Fprintf(out, "private answer: community %s\n", a.Community)
	if a.Mismatch == answer.AnsweredNearest {
		fmt.Fprintf(out, "%s %s: %s\n", name(paramOnMismatch), answer.MismatchNearest, a.Mismatch)
	} else if !a.ExactSource {
		fmt.Fprintf(out, "WARNING: answered by randomized response (%s %s): %s\n", name(paramOnMismatch), answer.MismatchRandomizedResponse, a.Mismatch)
	}
	answerAudit(out, a.Audit)
	fmt.Fprintf(out, "mechanism %s (cap %g, ε′ = %.4f per hop), ε = %g for moving the source α = %g hop(s)%s; charged ε = %g (ρ = %.6g)%s to scope %q, epoch %q\n",
		c.Mechanism, c.Cap, c.Scale, c.Epsilon, printedAlpha(s), driftNote(s), c.Epsilon, c.Rho, deltaCharged(a.Delta), s.Scope, s.Epoch)
	if s.Balance != nil {
		fmt.Fprintf(out, "ledger: %s\n", s.Balance)
	}
	fmt.Fprintln(out, "what the answer tells an analyst (posterior over communities, public):")
	if err := Ranking(out, a.Posterior, nil); err != nil {
		return err
	}
	if f := s.Forecast; f != nil {
		fmt.Fprintf(out, "forecast (%d simulated sources): the published community is the source's %.3f [%.3f, %.3f] (chance %.4f); "+
			"the source's community is in the analyst's 90%% set %.3f, %.1f communities\n",
			f.Trials, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.In90Rate, f.In90Size)
	}
	return nil
}

// AnswerPlan prints a private answer's plan (a dry run): the mechanism
// and the charge it would make, the audit, the balance now and the
// forecast.
func AnswerPlan(out io.Writer, s *job.AnswerSummary) error {
	c := s.Calibration
	fmt.Fprintln(out, "dry run: nothing charged, drawn or written")
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships; %d communities (%s)\n", s.Graph, s.NodeCount, s.RelationshipCount, c.K, s.Communities)
	delta := 0.0
	if s.Audit != nil {
		delta = s.Audit.SensorNoiseDelta
	}
	fmt.Fprintf(out, "mechanism %s (cap %g, ε′ = %.4f per hop), ε = %g for moving the source α = %g hop(s)%s; would charge ε = %g (ρ = %.6g)%s to scope %q, epoch %q\n",
		c.Mechanism, c.Cap, c.Scale, c.Epsilon, printedAlpha(s), driftNote(s), c.Epsilon, c.Rho, deltaCharged(delta), s.Scope, s.Epoch)
	answerAudit(out, s.Audit)
	if b := s.Balance; b != nil {
		fmt.Fprintf(out, "ledger now: %s\n", b)
	}
	if f := s.Forecast; f != nil {
		fmt.Fprintf(out, "forecast (%d simulated sources): the published community is the source's %.3f [%.3f, %.3f] (chance %.4f)\n",
			f.Trials, f.CommunityAccuracy, f.Low, f.High, f.Chance)
	}
	return nil
}

// deltaCharged is the δ of an answer's charge, as its line says it ("":
// none, the answer is ε-DP).
func deltaCharged(delta float64) string {
	if delta == 0 {
		return ""
	}
	return fmt.Sprintf(" and δ = %.3g", delta)
}

// answerAudit prints the answer's end-to-end privacy check (nil: none).
func answerAudit(out io.Writer, a *answer.Audit) {
	if a == nil {
		return
	}
	fmt.Fprintf(out, "audit: %d sources fitted to their class (%d classes, %d nodes merged; fit tolerance %g: sensor noise up to %.3g of the mean reading), worst loss %.6g ≤ %.6g over %d edges; a source drawn uniformly is answered with its community %.3f of the time\n",
		a.SourcesChecked-a.Refused-a.Misplaced, a.Classes, a.NodesMerged, a.FitTolerance, a.SensorNoiseBound, a.WorstLoss, a.Bound, a.EdgesChecked, a.Accuracy)
	if a.SensorNoise > 0 {
		fmt.Fprintf(out, "sensor noise: Gaussian, rms %g of the mean reading (stated); the model admits up to %.3g, so noise of %g× that rms leaves it with probability ≤ δ = %.3g (%.3g at the stated rms): the answer, its refusal or randomized response included, is (ε, δ)-DP\n",
			a.SensorNoise, a.SensorNoiseBound, recovery.NoiseMargin, a.SensorNoiseDelta, a.SensorNoiseDeltaAtStated)
	}
}

// printedAlpha is the α the printed ε is for: the answer's, not the α
// the mechanism was calibrated at under a drift allowance.
func printedAlpha(s *job.AnswerSummary) float64 {
	if s.Alpha == 0 {
		return 1
	}
	return s.Alpha
}

// driftNote says how a scope's drift allowance calibrated the mechanism.
func driftNote(s *job.AnswerSummary) string {
	switch s.DriftHops {
	case 0:
		return ""
	case privacy.DriftAny:
		return " (the scope's drift allowance is any: randomized response at ε, within ε between any two reading vectors)"
	}
	return fmt.Sprintf(" (the scope's drift allowance of %d hop(s): calibrated as α = %g)", s.DriftHops, answer.CalibrationAlpha(printedAlpha(s), s.DriftHops))
}
