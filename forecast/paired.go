package forecast

import "math"

// A plan's curve by source mass scores every mass on one pool of trials
// (MassCurves), so a pool whose sources happen to fall where its noise
// points would make every mass look better than a guess at once: the
// points' errors are no longer independent, and "every larger mass
// answers too" no longer guards the resolvable mass. The paired test
// takes that luck out. Each trial t of the pool is also scored at mass 0
// (its noise σ·z alone): its answer r0_t is right by luck only, and given
// the noise its chance of being right is known exactly — the share s_t
// of the nodes in the community it names, the source being uniform over
// them and independent of the noise. So c_t = r0_t − s_t has mean 0, and
// at mass m, where the answers r_t are mostly r0_t's at small m,
//
//	μ̂ = mean(r_t − β̂·c_t),  β̂ = cov(r, c)/var(c)
//
// is the regression estimate of the rate at m with c as control variate:
// the luck c shares with r cancels (β̂ ≈ 1 where the noise decides the
// answer), and where the answers owe nothing to the noise (β̂ ≈ 0) it is
// the plain mean. docs/derivations.md derives its error rate.

// pairedAnswer says whether trials right as rights (one source each, 1 or
// 0, in pool order) are right more often than guess, paired with the same
// trials at mass 0 (zero: their answers and the named communities'
// shares, at least as many): the lower bound of μ̂ at zVerdict above the
// guess. With no trials, or fewer paired ones, it is false.
func pairedAnswer(rights []float64, zero *SimulationResult, guess float64) bool {
	T := len(rights)
	if T < 2 || zero == nil || len(zero.accuracies) < T || len(zero.namedShares) < T {
		return false
	}
	c := make([]float64, T)
	var mr, mc float64
	for t := range T {
		c[t] = zero.accuracies[t] - zero.namedShares[t]
		mr += rights[t]
		mc += c[t]
	}
	mr /= float64(T)
	mc /= float64(T)
	var srr, src, scc float64
	for t := range T {
		dr, dc := rights[t]-mr, c[t]-mc
		srr += dr * dr
		src += dr * dc
		scc += dc * dc
	}
	beta := 0.0
	if scc > 0 {
		beta = src / scc
	}
	// μ̂ = mean(r) − β̂·mean(c) (E c = 0); its variance the residuals'.
	mu := mr - beta*mc
	resid := max(srr-beta*src, 0) / float64(T-1)
	return mu-zVerdict*math.Sqrt(resid/float64(T)) > guess
}

// namedShares is, per trial scored, the share of part's nodes (canonical
// ids) in the community it names (0: none named).
func namedShares(part []int, scores []graphScore) []float64 {
	size := memberCounts(part)
	out := make([]float64, len(scores))
	for i, sc := range scores {
		if sc.named >= 0 && sc.named < len(size) {
			out[i] = float64(size[sc.named]) / float64(len(part))
		}
	}
	return out
}
