package experiment

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// The rates derived in sensitivity.go, checked against the certified line
// sensitivity: √m in m, flat in n once the grid resolves the kernel,
// T^{−3/4} for small T and T^{−3/2} for large T.
func TestRunSensitivityRates(t *testing.T) {
	res, err := RunSensitivity(SensitivitySweep{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Series) != 3 {
		t.Fatalf("%d panels, want 3", len(res.Series))
	}
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %.3f", name, got, want, tol)
		}
	}
	m, n, T := res.Series[0], res.Series[1], res.Series[2]
	if m.Param != "m" || n.Param != "n" || T.Param != "T" {
		t.Fatalf("panels %s, %s, %s", m.Param, n.Param, T.Param)
	}
	near("m slope", m.Slope, 0.5, 0.005)
	near("n slope at large n", n.SlopeHigh, 0, 0.005)
	near("T slope at small T", T.SlopeLow, -0.75, 0.02)
	near("T slope at large T", T.SlopeHigh, -1.5, 0.02)
	if !(T.SlopeLow > T.PaperRate+0.5) {
		t.Errorf("small-T slope %.3f should be far shallower than the paper's %.1f", T.SlopeLow, T.PaperRate)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

// The constants of the two T regimes, derived in closed form, against the
// computed Δ2 (relative error shrinks as the regime is approached).
func TestSensitivityRegimeConstants(t *testing.T) {
	const m, n, alpha = 500, 1000, 2.0
	cases := []struct {
		T, rate, exp, tol float64
	}{
		{1e-3, SmallTRate, 0.75, 1e-3},
		{1e4, LargeTRate, 1.5, 1e-3},
	}
	for _, c := range cases {
		s, err := sensitivity.Line(n, m, c.T, alpha)
		if err != nil {
			t.Fatal(err)
		}
		want := c.rate * alpha * math.Sqrt(m) * math.Pow(c.T, -c.exp)
		if rel := math.Abs(s.Delta2-want) / want; rel > c.tol {
			t.Errorf("T = %g: Δ2 = %.6g, closed-form asymptote %.6g (relative error %.2g)", c.T, s.Delta2, want, rel)
		}
	}
}

func TestRunSensitivityRefusesBadSweeps(t *testing.T) {
	for _, s := range []SensitivitySweep{
		{Ms: []int{10}},
		{Ts: []float64{0.1, -1}},
		{Alpha: -1},
	} {
		if _, err := RunSensitivity(s); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}
