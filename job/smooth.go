package job

import (
	"context"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// SmoothChoice is one candidate of a release's automatic smoothing (SmoothAuto): the extra
// diffusion τ′, Δ2 at τ+τ′, the σ it calibrates at the release's ε and δ,
// and the forecast rate of the right community in first place.
type SmoothChoice struct {
	Smooth            float64 `json:"smooth"`
	Delta2            float64 `json:"delta2"`
	Delta2Exact       bool    `json:"delta2Exact"`
	Sigma             float64 `json:"sigma"`
	CommunityAccuracy float64 `json:"communityAccuracy"`
	Low               float64 `json:"low"`
	High              float64 `json:"high"`
}

// SmoothCandidates are the τ′ the automatic smoothing tries, as multiples
// of τ. Δ2 is non-increasing in τ (docs/derivations.md §2.7), so a longer
// diffusion buys a smaller σ and pays in blur; four points span the range
// where one has been seen to win.
var SmoothCandidates = []float64{0, 0.5, 1, 2}

// smoothAutoTrials simulate each candidate when the spec asks for no
// forecast.
const smoothAutoTrials = 100

// chooseSmooth settles the automatic smoothing on graph: for each candidate
// τ′ it computes Δ2 at τ+τ′ (from the cache when there, within the
// release's TimeBudget), the σ the release would draw with, and the
// per-node forecast at that σ, and keeps the τ′ with the highest forecast
// rate (the smaller τ′ on a tie). Only public inputs enter the choice —
// the graph, τ, ε, δ, the seeded simulation — never the readings, so it
// costs no privacy. The chosen Δ2 becomes the release's.
func (p *ReleasePlan) chooseSmooth(ctx context.Context, g *laplacian.Graph) error {
	s, sum := &p.Spec, p.Summary
	cg, part, err := p.forecastPartition(g) // in key order: any input order, one choice
	if err != nil {
		return err
	}
	trials := s.ForecastTrials
	if trials <= 0 {
		trials = smoothAutoTrials
	}
	var results []sensitivity.Result
	var cached []bool
	for _, m := range SmoothCandidates {
		smooth := m * s.Tau
		d2, fromCache, err := p.sensitivityAt(ctx, g, s.Tau+smooth)
		if err != nil {
			return err
		}
		cal, err := privacy.CalibrateRelease(d2.Delta2, s.Epsilon, s.Delta, g.N(), s.Mechanism)
		if err != nil {
			return errkind.Input(err)
		}
		r, err := forecast.Simulate(ctx, forecast.Simulation{Graph: cg, Partition: part, Tau: s.Tau + smooth, Sigma: cal.Sigma,
			Alpha: s.Alpha, Delta: s.Delta, Sources: 1, Trials: trials, Estimator: s.Estimator, Seed: s.ForecastSeed,
			Progress: p.env.progress("smooth auto forecast")})
		if err != nil {
			return err
		}
		f := forecast.Of(r)
		sum.SmoothChoices = append(sum.SmoothChoices, SmoothChoice{Smooth: smooth, Delta2: d2.Delta2, Delta2Exact: d2.Exact,
			Sigma: cal.Sigma, CommunityAccuracy: f.CommunityAccuracy, Low: f.Low, High: f.High})
		results, cached = append(results, d2), append(cached, fromCache)
		p.env.logger().Info("smooth auto", "smooth", smooth, "delta2", d2.Delta2, "sigma", cal.Sigma, "communityAccuracy", f.CommunityAccuracy)
	}
	b := bestIndex(sum.SmoothChoices)
	s.Smooth, sum.Smooth, p.Sensitivity = sum.SmoothChoices[b].Smooth, sum.SmoothChoices[b].Smooth, &results[b]
	if c := s.cache(g, s.Tau+s.Smooth); c != nil && !cached[b] { // the cache holds the released τ+τ′
		s.keepSensitivity(p.env.logger(), c, g, results[b], s.Tau+s.Smooth)
	}
	return nil
}

// bestIndex is the first choice with the highest forecast rate.
func bestIndex(cs []SmoothChoice) int {
	b := 0
	for i, c := range cs {
		if c.CommunityAccuracy > cs[b].CommunityAccuracy {
			b = i
		}
	}
	return b
}

// sensitivityAt is Δ2 at tau for the release: the cached certificate when
// it verifies (fromCache), else computed within the release's TimeBudget.
func (p *ReleasePlan) sensitivityAt(ctx context.Context, g *laplacian.Graph, tau float64) (d2 sensitivity.Result, fromCache bool, err error) {
	s := &p.Spec
	if c := s.cache(g, tau); c != nil {
		if d2 := s.cachedSensitivity(p.env.logger(), c, g, tau); d2 != nil {
			return *d2, true, nil
		}
	}
	d2, err = sensitivity.GraphContext(ctx, g, tau, s.Alpha, sensitivity.Options{Progress: p.env.progress("Δ2"), TimeBudget: s.TimeBudget})
	return d2, false, err
}
