package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
)

// Locate prints a localisation's summary: the graph and estimator, the
// verdict (or the warning that the ranking is noise), the ranked
// communities, the source mass and forecast, and what was written. A dry
// run's summary is its plan (LocatePlan).
func Locate(out io.Writer, s *job.LocateSummary) error {
	if s.DryRun {
		return LocatePlan(out, s)
	}
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships; estimator %s (%s), σ = %.6g, τ = %g\n",
		s.Graph, s.NodeCount, s.RelationshipCount, s.Estimator, s.Status, s.Sigma, s.Tau)
	if s.NoiseDominated {
		fmt.Fprintf(out, "WARNING: %s\n         (the ranking below: top community %.2f× its share of the nodes; evidence test against pure noise p = %.3f)\n",
			s.NoiseReason, s.PosteriorToPrior, s.NoisePValue)
	} else if v := s.Verdict; v != nil {
		fmt.Fprintf(out, "VERDICT: %s\n", v.Reason)
	}
	if err := Ranking(out, s.Report, nil); err != nil {
		return err
	}
	if m := s.SourceMass; m != nil {
		fmt.Fprintf(out, "source mass the release carries: %s\n", m)
		locateExactNode(out, s)
	}
	locateForecast(out, s.Forecast)
	if s.RunID != "" {
		fmt.Fprintf(out, "run %s: %d properties written (compute %d ms, write %d ms)\n",
			s.RunID, s.NodePropertiesWritten, s.ComputeMillis, s.WriteMillis)
	}
	if s.Out != "" {
		fmt.Fprintf(out, "per-node results: %s\n", s.Out)
	}
	return nil
}

// LocatePlan prints a localisation's plan (a dry run): what was checked,
// the communities, the properties it would write and the forecast.
func LocatePlan(out io.Writer, s *job.LocateSummary) error {
	fmt.Fprintln(out, "dry run: nothing located or written (no run record, no file)")
	fmt.Fprintf(out, "graph %s: %d nodes, %d relationships; estimator %s, σ = %.6g, τ = %g\n",
		s.Graph, s.NodeCount, s.RelationshipCount, s.Estimator, s.Sigma, s.Tau)
	if s.ReleaseRun != "" {
		fmt.Fprintf(out, "release run %s: σ, τ, the graph and its values checked\n", s.ReleaseRun)
	}
	fmt.Fprintf(out, "communities %s: %d\n", s.Communities, s.CommunityCount)
	if p := s.WriteProperties; p != nil {
		fmt.Fprintf(out, "would write %s (mass), %s (community), %s (probability), %s (rank) under a run record\n",
			p.Mass, p.Community, p.Probability, p.Rank)
	}
	if m := s.SourceMass; m != nil {
		fmt.Fprintf(out, "source mass the release carries: %s\n", m)
		locateExactNode(out, s)
	}
	locateForecast(out, s.Forecast)
	return nil
}

// locateExactNode prints the exact node's privacy at the source mass
// (nothing when the summary has none): at the stated mass, or at the
// least mass the release demonstrably carries — and when that is private,
// whether the most it carries (95%) is too, or cannot be told.
func locateExactNode(out io.Writer, s *job.LocateSummary) {
	e, m := s.ExactNode, s.SourceMass
	if e == nil {
		return
	}
	var subject string
	switch {
	case m.Given:
		subject = "the stated source of " + massUnits(e.Mass)
	case m.Low > 0:
		subject = fmt.Sprintf("a source of at least %s (the least this release carries, at 95%%)", massUnits(e.Mass))
	default:
		subject = "one protected unit (this release shows no source mass at 95%)"
	}
	line := ExactNode(*e, subject)
	switch {
	case !e.Private || m.Given:
	case m.High <= e.NotPrivateAbove:
		line += fmt.Sprintf("; this release carries at most %s (95%%)", massUnits(m.High))
	default:
		line += fmt.Sprintf("; whether this source is heavier the release cannot tell (it carries ≈ %s ± %.2g)", massUnits(m.Mass), m.SE)
	}
	fmt.Fprintf(out, "exact node: %s\n", line)
}

// locateForecast prints a localisation's utility forecast (nil: none).
func locateForecast(out io.Writer, f *forecast.Forecast) {
	if f == nil {
		return
	}
	mass := "unit sources"
	if f.SourceMass > 0 {
		mass = fmt.Sprintf("sources of %.3g units", f.SourceMass)
	}
	fmt.Fprintf(out, "forecast for releases like this one (%d simulated %s, σ = %.4g): right community %.3f [%.3f, %.3f] (chance %.4f, largest community %.4f), "+
		"source in the 90%% set %.3f with %.1f communities (chance %.3f)\n",
		f.Trials, mass, f.Sigma, f.CommunityAccuracy, f.Low, f.High, f.Chance, f.PriorRate, f.In90Rate, f.In90Size, f.In90Chance)
	if f.AtChance {
		fmt.Fprintln(out, "         at this σ the answer cannot be told from a guess: see 'graphcloak plan' for ε or the private-answer mode that answers")
	}
}
