package cost

import (
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// DryRunDelta2Guess is the guess at Δ2's time on a graph of edges edges
// in a dry run's first estimate where no model without a pilot exists:
// the dry run computes Δ2 when modelled under 10 s, so 0–10 s — 5 s, the
// middle, and less on graphs with few edges (30 µs an edge): Δ2 took
// 0.5 s on hep-th (15 751 edges), 3.1 s on astro-ph (121 251), 6.4–8.7 s
// on AS, e-mail Enron and cond-mat-2005 where the dry run computed it.
func DryRunDelta2Guess(edges int) float64 { return min(5, delta2EdgeGuess*float64(edges)) }

// delta2EdgeGuess is the seconds an edge at which Δ2 is guessed where its
// time needs the model's pilot (DryRunDelta2Guess, Delta2Guess).
const delta2EdgeGuess = 30e-6

// Delta2Guess guesses Δ2's whole time at tau on g with opt, its cost
// model's included, before the model runs (sensitivity.GuessFirst): where
// Δ2's own time needs the model's pilot, delta2EdgeGuess an edge — for a
// first estimate held while the model runs (HoldLine), superseded by its;
// at most opt.TimeBudget for Δ2 itself.
func Delta2Guess(g *laplacian.Graph, tau float64, opt sensitivity.Options) float64 {
	guess := sensitivity.GuessFirst(g, tau, opt)
	run := guess.Seconds
	if !guess.Modelled {
		run = delta2EdgeGuess * float64(g.NumEdges())
	}
	if b := opt.TimeBudget.Seconds(); b > 0 {
		run = min(run, b) // --time-budget stops the refinement there
	}
	return guess.ModelSeconds + run
}

// AnswerTrialFactor prices a private-answer trial before any has run, in
// per-node trials: its recovery is a per-node trial's and, where the plain
// recovery missed, the operator's exact scoring of up to 32 candidates (a
// block action) — 0.8–8.6 per-node trials on AS, LFR 2·10⁴, pgp and
// e-mail Enron (their first trials); 5 is within 2× of most of them.
const AnswerTrialFactor = 5
