package experiment

import (
	"context"
	"math"
)

// VerdictRounds bounds the rounds of ForecastVerdict: at most this many
// times the asked trials are simulated.
const VerdictRounds = 4

// zVerdict is the one-sided normal quantile of each round's test:
// 0.05/VerdictRounds per look (Bonferroni), so that all looks together
// err with probability at most 5% either way.
const zVerdict = 2.2414027276049473

// ForecastVerdict is the per-node forecast that decides locate's noise
// verdict: is a release like this one (e's graph, partition, σ, τ and
// estimator) right more often than a guess — the better of chance and
// always naming the largest community (Forecast.Guess)? It simulates
// e.Trials sources per round, each round with its own seed (e.Seed + r),
// and after each round tests the pooled rate one-sided (zVerdict): above
// the guess — an answer; below twice the guess — noise; otherwise it
// simulates another round. After VerdictRounds undecided rounds it calls
// noise unless the rate's lower bound clears the guess. With 100 trials a
// round, a release right 10% of the time against a guess of 4% is
// mostly decided in one or two rounds, one right as often as the guess
// in two or three; rates in between may take all four.
//
// The returned forecast pools every round (Trials is their total) and
// its AtChance is the verdict. e.Partition must be set or is computed
// once from e.Seed, so every round scores the same communities.
func ForecastVerdict(ctx context.Context, e Graph) (Forecast, error) {
	if e.Partition == nil {
		part, _, _, err := e.communities()
		if err != nil {
			return Forecast{}, err
		}
		e.Partition, e.Names = part, nil
	}
	var pooled *Forecast
	var right, in90, size, flagged float64
	for r := range VerdictRounds {
		round := e
		round.Seed = e.Seed + uint64(r)
		res, err := RunGraph(ctx, round)
		if err != nil {
			return Forecast{}, err
		}
		f := ForecastOf(res)
		n := float64(f.Trials)
		right += f.CommunityAccuracy * n
		in90 += f.In90Rate * n
		size += f.In90Size * n
		flagged += f.NoiseDominatedRate * n
		if pooled == nil {
			pooled = &f
		} else {
			pooled.Trials += f.Trials
		}
		T := float64(pooled.Trials)
		pooled.CommunityAccuracy, pooled.In90Rate, pooled.In90Size, pooled.NoiseDominatedRate = right/T, in90/T, size/T, flagged/T
		pooled.Low, pooled.High = Wilson(right, T, Z95)
		pooled.In90Low, pooled.In90High = Wilson(math.Round(in90), T, Z95)
		pooled.finish()
		lo, hi := Wilson(right, T, zVerdict)
		guess := pooled.Guess()
		switch {
		case lo > guess:
			pooled.AtChance = false
			return *pooled, nil
		case hi < 2*guess:
			pooled.AtChance = true
			return *pooled, nil
		}
	}
	lo, _ := Wilson(right, float64(pooled.Trials), zVerdict)
	pooled.AtChance = lo <= pooled.Guess()
	return *pooled, nil
}
