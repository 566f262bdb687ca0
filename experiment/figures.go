package experiment

import (
	"fmt"
	"image/color"
	"math"

	"github.com/graphcloak/graphcloak/internal/plotting"
)

// The figures of the experiments: the line experiment's trial, the
// graph sweep's rates and the sensitivity sweep's Figure 2.

// Plot draws trial 0 of the line experiment (true and recovered sources)
// to path.
func (r *LineResult) Plot(path string) error {
	ex := r.Example
	title := fmt.Sprintf("n=%d m=%d T=%g σ=%.3g, %s (trial 0)", r.N, r.M, r.T, r.Sigma, r.Estimator)
	return plotting.LineSources(path, ex.X, ex.F0, ex.FHat, r.EMDs, title, r.caption())
}

// caption states the line experiment's setting under its picture.
func (r *LineResult) caption() string {
	noise := fmt.Sprintf("fixed σ = %.3g (not private)", r.Sigma)
	if r.Private {
		noise = fmt.Sprintf("ε = %g, δ = %g, σ = %.3g", r.Epsilon, r.Delta, r.Sigma)
	}
	return fmt.Sprintf("n = %d, m = %d, T = %g, %s, %s estimator; no-source rate %.2f", r.N, r.M, r.T, noise, r.Estimator, r.NoSourceRate)
}

// Plot draws the right-community and exact-node rates of s to path
// against ε (one line per τ), or, byTau, against τ (one line per ε),
// with caption under them.
func (s GraphSummary) Plot(path, caption string, byTau bool) error {
	colours := []color.Color{plotting.Blue, plotting.Red, plotting.Green, color.Black}
	panel := func(title string, pts []RatePoint, chance float64, chanceTag string) plotting.RatePanel {
		pn := plotting.RatePanel{Title: title, XLabel: "privacy ε", YLabel: "rate over trials (95% Wilson)", LogX: true}
		groups := map[float64]*plotting.RateSeries{}
		var order []float64
		for _, p := range pts {
			key, x := p.Tau, p.Epsilon
			if byTau {
				key, x = p.Epsilon, p.Tau
			}
			sr, ok := groups[key]
			if !ok {
				label := fmt.Sprintf("τ = %g", key)
				if byTau {
					label = fmt.Sprintf("ε = %g", key)
				}
				sr = &plotting.RateSeries{Label: label, Color: colours[len(order)%len(colours)]}
				groups[key] = sr
				order = append(order, key)
			}
			sr.X, sr.Y, sr.Lo, sr.Hi = append(sr.X, x), append(sr.Y, p.Rate), append(sr.Lo, p.Lo), append(sr.Hi, p.Hi)
		}
		if byTau {
			pn.XLabel = "diffusion time τ"
		}
		for i, k := range order {
			sr := groups[k]
			if i == 0 {
				sr.ChanceY, sr.ChanceTag = chance, chanceTag
			}
			pn.Series = append(pn.Series, *sr)
		}
		return pn
	}
	return plotting.Rates(path, caption, []plotting.RatePanel{
		panel("right community", s.Community, s.CommunityChance, "chance (random community)"),
		panel("exact source node", s.ExactNode, s.ExactNodeChance, "chance (random node)"),
	})
}

// Fixed names the parameters a series holds fixed.
func (s SweepSeries) Fixed() string {
	switch s.Param {
	case "m":
		return fmt.Sprintf("n=%d T=%g α=%g", s.N, s.T, s.Alpha)
	case "n":
		return fmt.Sprintf("m=%d T=%g α=%g", s.M, s.T, s.Alpha)
	}
	return fmt.Sprintf("m=%d n=%d α=%g", s.M, s.N, s.Alpha)
}

// Plot draws Figure 2 to path: Δ2 against m, n and T on log-log axes,
// with the paper's rate anchored at the first point and the derived
// asymptotes.
func (res *SensitivityResult) Plot(path string) error {
	var panels []plotting.LogLogPanel
	for _, s := range res.Series {
		xs, ys := make([]float64, len(s.Point)), make([]float64, len(s.Point))
		for i, p := range s.Point {
			xs[i], ys[i] = p.X, p.Delta2
		}
		x0, y0, rate := xs[0], ys[0], s.PaperRate
		paper := plotting.RefLine{Label: fmt.Sprintf("paper: x^%g", rate), Dashed: true, Color: plotting.Red,
			F: func(x float64) float64 { return y0 * math.Pow(x/x0, rate) }}
		pn := plotting.LogLogPanel{Title: "Δ2 against " + s.Param + " (" + s.Fixed() + ")", XLabel: s.Param, YLabel: "Δ2(A)", X: xs, Y: ys}
		switch s.Param {
		case "T":
			c := s.Alpha * math.Sqrt(float64(s.M))
			pn.Refs = []plotting.RefLine{paper,
				{Label: "derived, sqrt(T) << 1: T^-0.75", Color: plotting.Blue, F: func(T float64) float64 { return SmallTRate * c * math.Pow(T, -0.75) }},
				{Label: "derived, sqrt(T) >> 1: T^-1.5", Color: plotting.Green, F: func(T float64) float64 { return LargeTRate * c * math.Pow(T, -1.5) }},
			}
		case "m":
			pn.Refs = []plotting.RefLine{paper}
		default:
			last := ys[len(ys)-1]
			pn.Refs = []plotting.RefLine{paper,
				{Label: "derived: flat for n >> 1/sqrt(T)", Color: plotting.Blue, F: func(float64) float64 { return last }}}
		}
		panels = append(panels, pn)
	}
	return plotting.LogLogPanels(path, "Δ2 of the 1-D heat kernel (certified), with the paper's rates (red, dashed) and the derived ones", panels)
}
