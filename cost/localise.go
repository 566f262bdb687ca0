package cost

import (
	"fmt"
	"math"
	"strings"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// Localisation is what a localisation on a graph runs (job's LocatePlan):
// the inputs its first line's model reads.
type Localisation struct {
	Tau float64
	// Partitioned: the partition is given (no community detection).
	Partitioned bool
	// ForecastTrials are the forecast's trials a round (0: no forecast);
	// SourceMass the stated mass (0: detected, by its null draws).
	ForecastTrials int
	SourceMass     float64
	// DryRun: no recovery and no evidence test.
	DryRun bool
	// ExactNormBlocks is the recovery's cap on block actions of exact
	// column norms (recovery.Posterior.ExactNorms, 0: none), run below
	// Sigma, the released values' σ (exactNormDraws).
	ExactNormBlocks int
	Sigma           float64
}

// Localise models a localisation on g before its long steps: community
// detection (unless Partitioned), the source mass's null draws (when it
// forecasts and no mass is stated), the recovery and the evidence test's
// null draws (unless a dry run) — a draw one column action of exp(−τL),
// K·(2|E|+n) steps at this machine's measured step rate, the recovery
// recoveryActions of them. The forecast's trials run only when the source
// mass is detected (forecast.AtMass), which is not known before: the line
// names their time apart. It returns the modelled total and the line (0
// and "" where the action is dense, or nothing is to be priced).
func Localise(g *laplacian.Graph, l Localisation) (float64, string) {
	K := chebyshevDegree(g, l.Tau, forecast.TrialBlock)
	if K == 0 || l.Partitioned && l.DryRun && l.ForecastTrials == 0 {
		return 0, ""
	}
	step := expm.MeasureStepRate(g, trialRateTiming).Seconds
	draw := float64(K) * float64(2*g.NumEdges()+g.N()) * step
	var steps []Step
	if !l.Partitioned {
		steps = append(steps, detectionStep(g.NumEdges()))
	}
	if l.ForecastTrials > 0 && l.SourceMass == 0 {
		steps = append(steps, Step{Step: "source mass", Seconds: forecast.MassNullDraws * draw})
	}
	if !l.DryRun {
		steps = append(steps, recoverySteps(g, l.Tau, draw, l.ExactNormBlocks, l.Sigma)...)
	}
	total, parts := 0.0, make([]string, len(steps))
	for i, st := range steps {
		total += st.Seconds
		parts[i] = st.Step + " " + human(st.Seconds)
	}
	trials := ""
	if l.ForecastTrials > 0 {
		per, _ := perNodeTrialAt(g, K, step)
		trials = fmt.Sprintf("; and %s for the forecast's trials if the release's source mass is detected", human(verdictForecastSeconds(l.ForecastTrials, per)))
	}
	return total, fmt.Sprintf("estimated %s for the localisation (%s; a null draw one column action of K = %d at this machine's %.3g ns a step)%s",
		human(total), strings.Join(parts, ", "), K, step*1e9, trials)
}

// detectionStep is community detection's estimate (Leiden or Louvain) on a
// graph of edges relationships: community.DetectionSeconds, the reference
// machine's rate a relationship.
func detectionStep(edges int) Step {
	return Step{Step: "communities", Seconds: community.DetectionSeconds(edges),
		Model: fmt.Sprintf("%d relationships at about %g µs each on the reference machine", edges, community.DetectionMicrosPerEdge)}
}

// recoverySteps are a localisation's recovery on g at τ, its exact
// column norms (below σ's threshold, exactNormDraws) and the evidence
// test's null draws, at draw seconds a column action.
func recoverySteps(g *laplacian.Graph, tau, draw float64, exactNormBlocks int, sigma float64) []Step {
	steps := []Step{{Step: "recovery", Seconds: recoveryActions * draw,
		Model: fmt.Sprintf("%d column actions at %.3g s", recoveryActions, draw)}}
	if cols := exactNormDraws(g, tau, exactNormBlocks, sigma); cols > 0 {
		steps = append(steps, Step{Step: "exact norms", Seconds: cols * draw,
			Model: fmt.Sprintf("up to %d block actions of %d columns at σ = %.3g (recovery.ForRelease)", exactNormBlocks, exactNormsBlock, sigma)})
	}
	return append(steps, Step{Step: "evidence test", Seconds: recovery.DefaultEvidenceDraws * draw,
		Model: fmt.Sprintf("%d null draws, a column action each", recovery.DefaultEvidenceDraws)})
}

// exactNormsBlock is the columns of one block action of the posterior's
// exact norms (recovery.Posterior.ExactNorms).
const exactNormsBlock = 32

// exactNormDraws prices the posterior's exact column norms on a release
// of noise σ, in column actions. Recovery runs a block only for nodes whose
// probed norm p̂ (the estimate of ‖M e_s‖² − 1/n, at most about 3× the
// truth p) can lift a likelihood by more than ½ nat (p̂/(3σ²)): none when
// σ² ≥ 2p for the largest p, which is the least connected node's (the heat
// stays there most; one column action: σ² ≥ 2/3 needs none, p < 1).
// Otherwise the cap of blocks: at σ = 10⁻³ on LFR 10⁵ the cap binds, at
// 10⁻⁴ two or three blocks run, at 10⁻⁵ one. Where the node's
// Gauss–Radau bound on ‖M e_s‖² (heatDiagonalBound: its degree and its
// edges' weights, no action) already settles σ² ≥ 2p, the column action
// is not run (LFR 10⁵ at σ = 0.54: 0.1 s of locate --estimate's second).
func exactNormDraws(g *laplacian.Graph, tau float64, blocks int, sigma float64) float64 {
	if blocks <= 0 || sigma*sigma >= 2.0/3 {
		return 0
	}
	s := leastConnected(g)
	if s >= 0 && sigma*sigma >= 2*heatDiagonalBound(g, s, tau)*(1+radauMargin) {
		return 0
	}
	if sigma*sigma >= 2*largestProbedNorm(g, s, tau) {
		return 0
	}
	return float64(blocks * exactNormsBlock)
}

// radauMargin keeps heatDiagonalBound's decision clear of its rounding
// and of the column action's tolerance (expm.DefaultTol): where it
// decides, the action's p̂ decides the same.
const radauMargin = 1e-6

// leastConnected is the node of least positive degree (−1: none).
func leastConnected(g *laplacian.Graph) int {
	s := -1
	for i, d := range g.Degrees() {
		if d > 0 && (s < 0 || d < g.Degree(s)) {
			s = i
		}
	}
	return s
}

// heatDiagonalBound is an upper bound on ‖M e_s‖² = (e^{−2τL})_ss from
// the first two moments of e_s's spectral measure, m₁ = L_ss = d_s and
// m₂ = (L²)_ss = d_s² + Σ_j w_sj², by the two-node Gauss–Radau rule with
// its fixed node at 0 (L ⪰ 0): nodes 0 and m₂/m₁, weights 1 − m₁²/m₂ and
// m₁²/m₂. For f(λ) = e^{−2τλ} the rule's remainder is f‴(η)/3!·∫λ(λ −
// m₂/m₁)² dμ ≤ 0 (f‴ < 0), so the rule is at least the integral
// (docs/derivations.md §8).
func heatDiagonalBound(g *laplacian.Graph, s int, tau float64) float64 {
	d := g.Degree(s)
	_, ws := g.Neighbors(s)
	m2 := d * d
	if ws == nil {
		m2 += d // unit weights: Σ w² = d
	}
	for _, w := range ws {
		m2 += w * w
	}
	far := d * d / m2 // the weight of the node at m₂/m₁
	return 1 - far + far*math.Exp(-2*tau*m2/d)
}

// largestProbedNorm is ‖M e_s‖² − 1/n for the node s, by one column
// action of exp(−τL) (1 when it cannot be computed or s < 0).
func largestProbedNorm(g *laplacian.Graph, s int, tau float64) float64 {
	n := g.N()
	act, err := expm.NewAction(g, tau, expm.Options{OwnOrder: true}) // one column: not worth reordering
	if s < 0 || err != nil {
		return 1
	}
	x, y := make([]float64, n), make([]float64, n)
	x[s] = 1
	act.Apply(y, x, 1)
	t := 0.0
	for _, v := range y {
		t += v * v
	}
	return max(0, t-1/float64(n))
}

// recoveryActions prices the recovery (the model's column norms and the
// estimator's iterations) in column actions: 0.6 s on e-mail Enron, 0.8 s
// on pgp-strong-2009, at about 8 ms an action.
const recoveryActions = 70

// VerdictForecastLine is the line a verdict's forecast (forecast.AtMass)
// tells once its first trials are timed at per seconds a trial (the first
// timed of them), "" when it is not over long.
func VerdictForecastLine(trials int, per float64, timed int, long float64) string {
	d := verdictForecastSeconds(trials, per)
	if d <= long {
		return ""
	}
	return fmt.Sprintf("estimated %s for the forecast (%d of up to %d rounds of %d trials at %.3g s a trial, the first %d)",
		human(d), ForecastRounds, forecast.VerdictRounds, trials, per, timed)
}
