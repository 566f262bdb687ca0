package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/forecast"
)

// LineExperiment prints the line experiment (the paper's Figure 1
// setting): its setting, the noise and the EMD between the true and the
// recovered sources.
func LineExperiment(out io.Writer, res *experiment.LineResult) {
	fmt.Fprintf(out, "experiment      line (n=%d, m=%d, T=%g, sources %v)\n", res.N, res.M, res.T, res.Sources)
	fmt.Fprintf(out, "estimator       %s\n", res.Estimator)
	if res.Private {
		fmt.Fprintf(out, "noise σ         %.6g (ε=%g, δ=%g, Δ2=%.6g)\n", res.Sigma, res.Epsilon, res.Delta, res.Delta2)
	} else {
		fmt.Fprintf(out, "noise σ         %.6g (fixed, not private)\n", res.Sigma)
	}
	fmt.Fprintf(out, "trials          %d (seed %d)\n", res.Trials, res.Seed)
	fmt.Fprintf(out, "EMD mean        %.4f\n", res.EMDMean)
	fmt.Fprintf(out, "EMD std / max   %.4f / %.4f\n", res.EMDStd, res.EMDMax)
	fmt.Fprintf(out, "no-source rate  %.3f\n", res.NoSourceRate)
}

// GraphExperiment prints one graph experiment as a table: the graph and
// its communities (res.Graph, res.CommunitySource), the noise, the rates,
// and a line when the right-community rate is at chance.
func GraphExperiment(out io.Writer, res *forecast.SimulationResult) {
	fmt.Fprintf(out, "experiment          graph %s (%d nodes, %d edges)\n", res.Graph, res.Nodes, res.Edges)
	fmt.Fprintf(out, "communities         %d (%s)\n", res.Communities, res.CommunitySource)
	fmt.Fprintf(out, "estimator           %s\n", res.Estimator)
	if res.Private {
		bound := ""
		if res.Delta2Exact != nil && !*res.Delta2Exact {
			bound = ", an upper bound"
		}
		fmt.Fprintf(out, "noise σ             %.6g (τ=%g, ε=%g, δ=%g, Δ2=%.6g%s)\n", res.Sigma, res.Tau, res.Epsilon, res.Delta, res.Delta2, bound)
	} else {
		fmt.Fprintf(out, "noise σ             %.6g (fixed, not private; τ=%g)\n", res.Sigma, res.Tau)
	}
	fmt.Fprintf(out, "trials              %d (%d source(s) each, seed %d)\n", res.Trials, res.Sources, res.Seed)
	fmt.Fprintf(out, "community accuracy  %.3f\n", res.CommunityAccuracy)
	fmt.Fprintf(out, "true-community p    %.3f (mean share)\n", res.TrueShareMean)
	fmt.Fprintf(out, "exact-node rate     %.3f\n", res.ExactNodeRate)
	fmt.Fprintf(out, "EMD mean            %.4f\n", res.EMDMean)
	fmt.Fprintf(out, "no-source rate      %.3f\n", res.NoSourceRate)
	AtChance(out, forecast.Of(res))
}

// GraphSweep prints the graph experiment at several τ or ε: one row per
// experiment with its rates and 95% intervals, those whose interval
// reaches a guess's rate marked, then the chance levels and the picture.
func GraphSweep(out io.Writer, sw experiment.SweepReport) {
	fmt.Fprintf(out, "%-8s %-8s %-10s %-22s %-22s %s\n", "TAU", "EPSILON", "SIGMA", "RIGHT COMMUNITY (95%)", "EXACT NODE (95%)", "NO SOURCE")
	for i, r := range sw.Experiments {
		c, x := sw.Summary.Community[i], sw.Summary.ExactNode[i]
		mark := ""
		if c.Lo <= sw.Summary.CommunityGuess {
			mark = "   ← at chance: noise"
		}
		fmt.Fprintf(out, "%-8g %-8g %-10.4g %.3f [%.3f, %.3f]    %.3f [%.3f, %.3f]    %.3f%s\n",
			r.Tau, r.Epsilon, r.Sigma, c.Rate, c.Lo, c.Hi, x.Rate, x.Lo, x.Hi, r.NoSourceRate, mark)
	}
	first := sw.Experiments[0]
	fmt.Fprintf(out, "chance: right community %.3f (always the largest community: %.3f), exact node %.4f; %d trials each (seed %d)\n",
		sw.Summary.CommunityChance, sw.Summary.CommunityGuess, sw.Summary.ExactNodeChance, first.Trials, first.Seed)
	if sw.Plot != "" {
		fmt.Fprintf(out, "picture: %s\n", sw.Plot)
	}
}

// SensitivitySweep prints the line sensitivity's three panels (the
// paper's Figure 2): per swept parameter the fitted log-log slopes beside
// the paper's rate, then the rates derived for them.
func SensitivitySweep(out io.Writer, res *experiment.SensitivityResult) {
	fmt.Fprintf(out, "%-6s %-28s %10s %10s %10s %10s\n", "VARIES", "FIXED", "SLOPE", "LOW END", "HIGH END", "PAPER")
	for _, s := range res.Series {
		fmt.Fprintf(out, "%-6s %-28s %10.4f %10.4f %10.4f %10.1f\n", s.Param, s.Fixed(), s.Slope, s.SlopeLow, s.SlopeHigh, s.PaperRate)
	}
	fmt.Fprintf(out, "\nderived: m slope 0.5; n slope 0 once n ≫ 1/√T; T slope −0.75 for √T ≪ 1, −1.5 for √T ≫ 1\n")
}
