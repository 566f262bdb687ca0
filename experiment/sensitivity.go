package experiment

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// The paper's Figure 2 computes Δ2(A) of the 1-D heat kernel (n source
// grid points x_j = j/n, m sensors s_i = i/m, time T) while one of m, n, T
// varies, to support its Proposition Δ2(A) = O(α√m/T^1.5).
//
// Writing the column difference as a derivative,
//
//	A_j − A_{j+1} ≈ (1/n) g′(s_i − x_j),  g′(u) = −u/(2T) · g(u),
//	Δ2 = α · n · max_j ‖A_j − A_{j+1}‖ ≈ α · max_x (Σ_i g′(s_i − x)²)^{1/2},
//
// which is independent of n once the grid resolves the kernel
// (n ≫ 1/√T), and the sum over sensors gives √m once m ≫ 1/√T. In T
// there are two regimes:
//
//   - √T ≪ 1 (heat stays inside the interval): Σ_i g′² ≈ m ∫ g′(u)² du =
//     m / (8√(2π) T^1.5), so Δ2 ≈ α √m / √(8√(2π)) · T^{−3/4};
//   - √T ≫ 1 (heat spreads past both ends): g′(u) ≈ −u/(2T√(4πT)) on
//     the interval, maximal for a source at an end, Σ_i s_i² ≈ m/3, so
//     Δ2 ≈ α √m / √(48π) · T^{−3/2}.
//
// The Proposition's rates in m and n hold; its T^{−1.5} is the large-T
// rate only. For the diffusion times a sensor deployment uses (√T below
// the size of the space) the truth is T^{−3/4}: the Proposition is an
// upper bound there, loose by T^{−3/4}, not tight as the paper suggests.

// SmallTRate and LargeTRate are the constants of the two regimes above:
// Δ2 → SmallTRate·α√m·T^{−3/4} as T → 0 (with m, n ≫ 1/√T) and
// Δ2 → LargeTRate·α√m·T^{−3/2} as T → ∞.
var (
	SmallTRate = 1 / math.Sqrt(8*math.Sqrt(2*math.Pi))
	LargeTRate = 1 / math.Sqrt(48*math.Pi)
)

// SensitivitySweep is the setting of Figure 2. The zero value of a field
// means the paper's value.
type SensitivitySweep struct {
	// M and T are fixed while the others vary (paper: 500 and 0.1).
	M int
	T float64
	// NForM is n while m varies (paper: 500); NForT is n while T varies
	// (paper: 1000).
	NForM, NForT int
	// Alpha is the neighbour EMD radius (default 1).
	Alpha float64
	// Ms, Ns, Ts are the values swept (defaults: m from 10 to 5000, n from
	// 2 to 5000, T from 1e-4 to 100, log-spaced).
	Ms, Ns []int
	Ts     []float64
}

// SweepPoint is Δ2 at one value of the swept parameter.
type SweepPoint struct {
	X      float64 `json:"x"`
	Delta2 float64 `json:"delta2"`
}

// SweepSeries is one panel of Figure 2.
type SweepSeries struct {
	// Param is "m", "n" or "T"; the fixed values of the other two follow.
	Param string       `json:"param"`
	M     int          `json:"m,omitempty"`
	N     int          `json:"n,omitempty"`
	T     float64      `json:"t,omitempty"`
	Alpha float64      `json:"alpha"`
	Point []SweepPoint `json:"points"`
	// Slope is the least-squares slope of log Δ2 against log x over all
	// points; SlopeLow and SlopeHigh are the slopes between the first two
	// and the last two points (the local rates at either end).
	Slope     float64 `json:"slope"`
	SlopeLow  float64 `json:"slopeLow"`
	SlopeHigh float64 `json:"slopeHigh"`
	// PaperRate is the exponent of the Proposition (m: 0.5, n: 0, T: −1.5).
	PaperRate float64 `json:"paperRate"`
}

// SensitivityResult holds the three panels: m, n and T varying.
type SensitivityResult struct {
	Series []SweepSeries `json:"series"`
}

func logspace(lo, hi float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*float64(i)/float64(k-1))
	}
	return out
}

func intLogspace(lo, hi float64, k int) []int {
	var out []int
	for _, v := range logspace(lo, hi, k) {
		r := int(math.Round(v))
		if len(out) == 0 || r > out[len(out)-1] {
			out = append(out, r)
		}
	}
	return out
}

func (s SensitivitySweep) withDefaults() SensitivitySweep {
	if s.M == 0 {
		s.M = 500
	}
	if s.T == 0 {
		s.T = 0.1
	}
	if s.NForM == 0 {
		s.NForM = 500
	}
	if s.NForT == 0 {
		s.NForT = 1000
	}
	if s.Alpha == 0 {
		s.Alpha = 1
	}
	if s.Ms == nil {
		s.Ms = intLogspace(10, 5000, 12)
	}
	if s.Ns == nil {
		s.Ns = intLogspace(2, 5000, 12)
	}
	if s.Ts == nil {
		s.Ts = logspace(1e-4, 100, 13)
	}
	return s
}

// RunSensitivity computes the three panels of Figure 2 with the certified
// line sensitivity (sensitivity.Line). Each panel needs at least
// two values, all positive. The n panel uses the fixed T and m = M.
func RunSensitivity(s SensitivitySweep) (*SensitivityResult, error) {
	s = s.withDefaults()
	if len(s.Ms) < 2 || len(s.Ns) < 2 || len(s.Ts) < 2 {
		return nil, &forecast.ParamError{Param: "sweep", Value: fmt.Sprintf("%d/%d/%d values", len(s.Ms), len(s.Ns), len(s.Ts)), Reason: "needs at least two values of each of m, n and T"}
	}
	if err := positive("alpha", s.Alpha); err != nil {
		return nil, err
	}
	for _, v := range s.Ts {
		if err := positive("T", v); err != nil {
			return nil, err
		}
	}
	for _, v := range append(append([]int(nil), s.Ms...), s.Ns...) {
		if v < 1 {
			return nil, &forecast.ParamError{Param: "m/n", Value: v, Reason: "must be at least 1"}
		}
	}
	type panel struct {
		series SweepSeries
		xs     []float64
		eval   func(x float64) (sensitivity.Result, error)
	}
	ints := func(v []int) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	panels := []panel{
		{SweepSeries{Param: "m", N: s.NForM, T: s.T, PaperRate: 0.5}, ints(s.Ms),
			func(x float64) (sensitivity.Result, error) {
				return sensitivity.Line(s.NForM, int(x), s.T, s.Alpha)
			}},
		{SweepSeries{Param: "n", M: s.M, T: s.T, PaperRate: 0}, ints(s.Ns),
			func(x float64) (sensitivity.Result, error) {
				return sensitivity.Line(int(x), s.M, s.T, s.Alpha)
			}},
		{SweepSeries{Param: "T", M: s.M, N: s.NForT, PaperRate: -1.5}, s.Ts,
			func(x float64) (sensitivity.Result, error) {
				return sensitivity.Line(s.NForT, s.M, x, s.Alpha)
			}},
	}
	res := &SensitivityResult{}
	for _, p := range panels {
		ser := p.series
		ser.Alpha = s.Alpha
		for _, x := range p.xs {
			sens, err := p.eval(x)
			if err != nil {
				return nil, err
			}
			ser.Point = append(ser.Point, SweepPoint{X: x, Delta2: sens.Delta2})
		}
		ser.Slope, ser.SlopeLow, ser.SlopeHigh = logSlopes(ser.Point)
		res.Series = append(res.Series, ser)
	}
	return res, nil
}

// logSlopes fits log Δ2 = a + b log x by least squares over all points,
// and returns b with the two end slopes. Points with Δ2 = 0 (n = 1) are
// left out of the fit.
func logSlopes(pts []SweepPoint) (all, low, high float64) {
	var lx, ly []float64
	for _, p := range pts {
		if p.Delta2 > 0 {
			lx, ly = append(lx, math.Log(p.X)), append(ly, math.Log(p.Delta2))
		}
	}
	k := len(lx)
	if k < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var mx, my float64
	for i := range lx {
		mx, my = mx+lx[i], my+ly[i]
	}
	mx, my = mx/float64(k), my/float64(k)
	var sxy, sxx float64
	for i := range lx {
		sxy += (lx[i] - mx) * (ly[i] - my)
		sxx += (lx[i] - mx) * (lx[i] - mx)
	}
	slope := func(i, j int) float64 { return (ly[j] - ly[i]) / (lx[j] - lx[i]) }
	return sxy / sxx, slope(0, 1), slope(k-2, k-1)
}

// RunPlotted is RunSensitivity of s once CheckGiven passed, its three
// panels drawn to plot when set ("": no picture).
func (s SensitivitySweep) RunPlotted(plot string) (*SensitivityResult, error) {
	if err := s.CheckGiven(); err != nil {
		return nil, err
	}
	res, err := RunSensitivity(s)
	if err != nil {
		return nil, err
	}
	if plot != "" {
		if err := res.Plot(plot); err != nil {
			return nil, err
		}
	}
	return res, nil
}
