package experiment

import (
	"math"

	"github.com/graphcloak/graphcloak/forecast"
)

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

// Summarise collects results of Simulate on one graph. Rates over
// several sources per trial are fractions; their successes are rounded to
// whole trials for the interval.
func Summarise(results []*forecast.SimulationResult) GraphSummary {
	var s GraphSummary
	for _, r := range results {
		n := float64(r.Trials)
		point := func(rate float64) RatePoint {
			lo, hi := forecast.Wilson(math.Round(rate*n), n, forecast.Z95)
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
