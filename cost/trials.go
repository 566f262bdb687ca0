package cost

import (
	"fmt"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A per-node forecast trial costs perNodeTrialActions column actions of
// exp(−τL) (the trial's source diffusion a and the model's correlations
// of a and of its noise, forecast.TrialPool: three) and
// perNodeTrialNodeSeconds a node (its posterior and its ranking): the fit
// to trials timed on e-mail Enron, pgp, cond-mat-2005, astro-ph, AS, hep-th
// and LFR 2·10⁴ at τ = 1, within 0.83–1.09 of each (docs/results.md, "The
// dry run's estimate at once").
const (
	perNodeTrialActions     = 3.2
	perNodeTrialNodeSeconds = 0.32e-6
)

// PerNodeTrialSeconds prices a per-node forecast trial on g at τ, in wall
// seconds (its readings, their noise and the recovery; plan's trials are
// then scored at each ε): perNodeTrialActions column actions of
// K·(2|E| + n) steps at step seconds a step — 0: this machine's step
// rate, measured (expm.MeasureStepRate for trialRateTiming) — and
// perNodeTrialNodeSeconds a node; and says how. 0 where the action is not
// a Chebyshev series (small graphs: dense).
func PerNodeTrialSeconds(g *laplacian.Graph, tau float64, trials int, step float64) (float64, string) {
	K := chebyshevDegree(g, tau, trials)
	if K == 0 {
		return 0, ""
	}
	if step <= 0 {
		step = trialStepSeconds(g)
	}
	return perNodeTrialAt(g, K, step)
}

// trialStepSeconds is this machine's time a step of the action on g
// (expm.MeasureStepRate for trialRateTiming): measured once, it prices
// trials at several τ (PerNodeTrialSeconds, answerTrialSecondsAt).
func trialStepSeconds(g *laplacian.Graph) float64 {
	return expm.MeasureStepRate(g, trialRateTiming).Seconds
}

// answerTrialSecondsAt prices a private-answer trial on g at τ before any
// has run, at step seconds a step: AnswerTrialFactor per-node trials
// (PerNodeTrialSeconds), and says how.
func answerTrialSecondsAt(g *laplacian.Graph, tau float64, trials int, step float64) (float64, string) {
	per, how := PerNodeTrialSeconds(g, tau, trials, step)
	return AnswerTrialFactor * per, fmt.Sprintf("%d per-node trials' time: %s", AnswerTrialFactor, how)
}

// perNodeTrialAt is PerNodeTrialSeconds for a series of degree K at step
// seconds a step.
func perNodeTrialAt(g *laplacian.Graph, K int, step float64) (float64, string) {
	steps := float64(K) * float64(2*g.NumEdges()+g.N())
	return perNodeTrialActions*steps*step + perNodeTrialNodeSeconds*float64(g.N()),
		fmt.Sprintf("%g column actions of K = %d at this machine's %.3g ns a step and %g µs a node", perNodeTrialActions, K, step*1e9, perNodeTrialNodeSeconds*1e6)
}

// chebyshevDegree is the degree of the series that applies exp(−τL) on g
// to blocks of columns columns, 0 where the action is not a Chebyshev
// series (small graphs: dense).
func chebyshevDegree(g *laplacian.Graph, tau float64, columns int) int {
	act, err := expm.NewAction(g, tau, expm.Options{Columns: columns, OwnOrder: true}) // read for its degree
	ch, ok := act.(*expm.Chebyshev)
	if err != nil || !ok {
		return 0
	}
	return ch.Degree()
}
