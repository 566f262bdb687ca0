package recovery

import (
	"math"
	"slices"
)

// On an operator model the posterior's column norms ‖M e_s‖² are a
// randomised estimate whose error (≈ sqrt(2/Probes), 25% with 32 probes,
// of the non-constant part) enters each log-likelihood as
// ½μ²·error/σ² nats. On nearly noiseless readings of a large graph that is
// tens of nats (measured on LFR 2·10⁴ at σ = 10⁻³: up to 33): a node whose
// norm happens to be underestimated outscores the source, and the
// posterior follows the estimate's noise, not the data (on an SBM of 400
// nodes the community shares moved by up to 0.23 and the top community
// changed, TestOperatorPosteriorIsTheExactOne). exactLL removes that error where it can
// matter: it computes the norm exactly for every node whose likelihood,
// with its norm as low as the estimate allows, could come within
// exactMargin nats of the best exactly scored node, most promising first.
// Every other node keeps its estimate: it lies, with the same bound, more
// than exactMargin below the best, so its posterior weight is negligible
// whatever its exact norm.
const (
	// probedRatioBound bounds how far above the true value the probed
	// part of a norm may lie (the mean of Probes squared projections:
	// with 32 probes its ratio to the truth exceeds 3 with probability
	// below 1e-9 for Gaussian probes, less for Rademacher ones).
	probedRatioBound = 3
	// exactBlock is the number of norms computed in one block action.
	exactBlock = 32
	// exactTolerance: a node whose bound lies within this many nats of
	// its estimate keeps the estimate (its error is too small to move
	// the ranking).
	exactTolerance = 0.5
)

// exactMargin is how far below the best log-likelihood a node's bound
// must lie to be left with its estimate: ln n + 14 nats, so that all
// such nodes together weigh less than e⁻¹⁴ of the best.
func exactMargin(n int) float64 { return math.Log(float64(n)) + 14 }

// exactLL returns ll with the log-likelihoods of the nodes that could
// matter recomputed with exact norms (see above), in at most maxBlocks
// block actions. c0 = Mᵀỹ; ll was computed from the estimated norms.
// When no node's estimate can be off by more than exactTolerance nats
// (the noise of a private release: σ² above the norms' probed parts) it
// runs none and returns ll as it is.
func exactLL(md *Model, ll, c0 []float64, mu, s2 float64, maxBlocks int) []float64 {
	out := slices.Clone(ll)
	// upper[s]: ll[s] with the probed part of the norm at its lowest.
	upper := make([]float64, len(ll))
	reach := 0.0
	for s, p := range md.probed {
		upper[s] = ll[s] + 0.5*mu*mu*p*(1-1.0/probedRatioBound)/s2
		reach = max(reach, upper[s]-ll[s])
	}
	if reach <= exactTolerance {
		return out
	}
	order := TopK(upper, len(upper))
	// The first block: the largest correlations (the source's on
	// nearly noiseless readings, whatever the norms' error) and the
	// largest estimated likelihoods.
	first := TopK(c0, exactBlock/2)
	for _, s := range TopK(ll, exactBlock) {
		if len(first) < exactBlock && !slices.Contains(first, s) {
			first = append(first, s)
		}
	}
	done := make([]bool, len(ll))
	best := math.Inf(-1)
	score := func(nodes []int) {
		for _, e := range md.refineNorms(nodes) {
			out[e.node] = (mu*c0[e.node] - 0.5*mu*mu*e.norm2) / s2
			done[e.node] = true
			best = max(best, out[e.node])
		}
	}
	score(first)
	margin := exactMargin(len(ll))
	blocks, next := 1, 0
	for blocks < maxBlocks {
		var batch []int
		for next < len(order) && len(batch) < exactBlock {
			s := order[next]
			if upper[s] < best-margin {
				next = len(order)
				break
			}
			next++
			if !done[s] && upper[s]-ll[s] > exactTolerance {
				batch = append(batch, s)
			}
		}
		if len(batch) == 0 {
			break
		}
		score(batch)
		blocks++
	}
	return out
}
