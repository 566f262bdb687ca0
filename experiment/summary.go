package experiment

import "math"

// Wilson returns the Wilson score interval for a proportion with k
// successes in n trials at the normal quantile z (1.959964 for 95%):
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  p̂ = k/n.
//
// Wilson (1927), J. Am. Stat. Assoc. 22:209. Unlike p̂ ± z√(p̂(1−p̂)/n) it
// stays inside [0, 1] and is not empty at p̂ = 0 or 1.
func Wilson(k, n, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := k / n
	z2 := z * z
	den := 1 + z2/n
	centre := (p + z2/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / den
	lo, hi = math.Max(0, centre-half), math.Min(1, centre+half)
	// At p̂ = 0 or 1 one root is exactly 0 or 1; keep it exact.
	if k <= 0 {
		lo = 0
	}
	if k >= n {
		hi = 1
	}
	return lo, hi
}

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959963984540054

// RatePoint is a rate over trials with its 95% Wilson interval.
type RatePoint struct {
	Epsilon float64 `json:"epsilon"`
	Tau     float64 `json:"tau"`
	Rate    float64 `json:"rate"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
}

// GraphSummary is the outcome of several graph experiments (one per ε and
// τ): the right-community and exact-node rates with 95% Wilson intervals,
// and their chance levels (a uniformly random community, a uniformly
// random node). CommunityGuess is the larger of CommunityChance and the
// largest community's share of the nodes: what a ranking that learns
// nothing from the data achieves (it names the largest community first),
// the level a rate must beat to be a finding.
type GraphSummary struct {
	Community       []RatePoint `json:"community"`
	ExactNode       []RatePoint `json:"exactNode"`
	CommunityChance float64     `json:"communityChance"`
	CommunityGuess  float64     `json:"communityGuess"`
	ExactNodeChance float64     `json:"exactNodeChance"`
}

// Summarise collects results of RunGraph on one graph. Rates over
// several sources per trial are fractions; their successes are rounded to
// whole trials for the interval.
func Summarise(results []*GraphResult) GraphSummary {
	var s GraphSummary
	for _, r := range results {
		n := float64(r.Trials)
		point := func(rate float64) RatePoint {
			lo, hi := Wilson(math.Round(rate*n), n, Z95)
			return RatePoint{Epsilon: r.Epsilon, Tau: r.Tau, Rate: rate, Lo: lo, Hi: hi}
		}
		s.Community = append(s.Community, point(r.CommunityAccuracy))
		s.ExactNode = append(s.ExactNode, point(r.ExactNodeRate))
		if r.Communities > 0 {
			s.CommunityChance = 1 / float64(r.Communities)
			s.CommunityGuess = math.Max(s.CommunityChance, r.LargestShare)
		}
		if r.Nodes > 0 {
			s.ExactNodeChance = 1 / float64(r.Nodes)
		}
	}
	return s
}
