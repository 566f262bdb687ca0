package job_test

import (
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// plan's curve of the exact node's ε by source mass is never below the ε
// the release it forecasts will have (its own accounting: CalibrateRelease,
// the grid's widening included, read as locate reads a release's
// metadata), at every mass of the grid — 0.1 unit included, where the
// widening weighs ten times what it does at one unit (issue 77, item 6:
// the curve was 0.5 % low there) — and its "NOT private above" is never
// above the release's.
func TestExactNodeCurveIsConservative(t *testing.T) {
	row, _ := privacy.LookupMechanism("discrete")
	for _, c := range []struct {
		delta2 float64
		n      int
	}{{0.356418, 34}, {0.0555, 115}, {0.0119, 4941}} {
		for _, eps := range []float64{0.5, 1, 4, 8} {
			const delta = 1e-5
			sigma, err := row.Sigma(c.delta2, eps, delta) // the plan's simulated σ
			if err != nil {
				t.Fatal(err)
			}
			f := forecast.Forecast{Mode: forecast.ModePerNode, Mechanism: "discrete", Epsilon: eps, Delta: delta, Alpha: 1, Sigma: sigma}
			if err := SetExactNodeCurve(&f, c.delta2, c.n); err != nil {
				t.Fatal(err)
			}
			cal, err := privacy.CalibrateRelease(c.delta2, eps, delta, c.n, privacy.MechanismDiscrete)
			if err != nil {
				t.Fatal(err)
			}
			released, ok := privacy.NodeNoiseOf(privacy.ReleaseMeta{Sigma: cal.Sigma, Sensitivity: c.delta2,
				EffectiveSensitivity: cal.EffectiveSensitivity, Alpha: 1, Delta: delta})
			if !ok {
				t.Fatal("release metadata incomplete")
			}
			for i, m := range forecast.MassGrid() {
				want, err := released.ExactNode(m)
				if err != nil {
					t.Fatal(err)
				}
				got := f.ExactNode[i]
				if got.Epsilon < want.Epsilon || got.NotPrivateAbove > want.NotPrivateAbove {
					t.Errorf("Δ2 %g, n %d, ε %g, %g units: plan says ε %.6g (not private above %.6g), the release has %.6g (%.6g): %.3g%% low",
						c.delta2, c.n, eps, m, got.Epsilon, got.NotPrivateAbove, want.Epsilon, want.NotPrivateAbove, 100*(1-got.Epsilon/want.Epsilon))
				}
			}
		}
	}
}
