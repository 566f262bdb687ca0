package answer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// clopperPearson is the exact two-sided interval of a binomial rate
// (k of n) at confidence 1 − b: the b/2 quantile of Beta(k, n−k+1) and
// the 1 − b/2 quantile of Beta(k+1, n−k).
func clopperPearson(k, n int, b float64) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(b / 2)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - b/2)
	}
	return lo, hi
}

// sizedFaults are the imperfections of the output oracle on the sensors
// every every-th (in the graph's order) at h = 1, 1.5, 3 times their
// stated size: ⌈h⌉ adjacent sensors stuck at 0 (a missing reading is
// read as 0 by the nearest fit: the same rows), one saturated at h times
// full scale μ, an 8-bit ADC of step h·μ/256 with a sensor stuck at 0,
// and a gain error of h·1 % with Student-t(3) noise at h times the rms
// and a missing sensor, and (at 1×) two sensors saturated, k and k + n/2
// — beside sensorFaults' ADC, gain and t(3) alone.
// With only ≥ 0 the combined and scaled faults are at that sensor alone.
func sizedFaults(g *laplacian.Graph, mass, nu float64, every, only int) []sensorFault {
	n := g.N()
	var out []sensorFault
	for _, h := range []float64{1, 1.5, 3} {
		var gt []sensorFault // the global ones: ADC, gain, t(3)
		for _, f := range sensorFaults(g, mass, nu, h, n+1) {
			if !strings.Contains(f.name, "@") {
				gt = append(gt, f)
			}
		}
		out = append(out, gt...)
		adc, gain, t3 := gt[0].apply, gt[1].apply, gt[2].noise
		for k := 0; k < n; k += every {
			if h > 1 && only >= 0 && k != only {
				continue
			}
			stuck := func(y []float64) {
				for j := k; j < min(n, k+int(math.Ceil(h))); j++ {
					y[j] = 0
				}
			}
			out = append(out,
				sensorFault{name: fmt.Sprintf("stuck0×%g@%s", h, g.Key(k)), apply: func(y []float64, _ *rand.Rand) { stuck(y) }},
				sensorFault{name: fmt.Sprintf("saturated×%g@%s", h, g.Key(k)), apply: func(y []float64, _ *rand.Rand) { y[k] = h * mass }})
			if h == 1 && (only < 0 || k == only) { // two faulty sensors, both saturated
				far := (k + n/2) % n
				out = append(out, sensorFault{name: fmt.Sprintf("saturated2×1@%s,%s", g.Key(k), g.Key(far)),
					apply: func(y []float64, _ *rand.Rand) { y[k], y[far] = mass, mass }})
			}
			if h == 1 || only >= 0 {
				out = append(out,
					sensorFault{name: fmt.Sprintf("adc8+stuck0×%g@%s", h, g.Key(k)), apply: func(y []float64, r *rand.Rand) { adc(y, r); y[k] = 0 }},
					sensorFault{name: fmt.Sprintf("gain+t3+missing×%g@%s", h, g.Key(k)), noise: t3,
						apply: func(y []float64, r *rand.Rand) { gain(y, r); y[k] = math.NaN() }})
			}
		}
	}
	return out
}

// outputCounts draws one published community per source and draw from
// the exact distribution at the draw's centre (the oracle's own inverse
// CDF, seeded): column K is "refused", which the nearest fit never is.
func outputCounts(m *Model, cal privacy.AnswerCalibration, centres [][]int, seed uint64) [][]int {
	k := m.Geometry.K()
	rng := rand.New(rand.NewPCG(seed, 77))
	probs := map[int][]float64{}
	out := make([][]int, len(centres))
	for s, c := range centres {
		out[s] = make([]int, k+1)
		for _, v := range c {
			if v < 0 {
				out[s][k]++
				continue
			}
			p, ok := probs[v]
			if !ok {
				p = cal.ProbabilitiesAt(m.Geometry, v)
				probs[v] = p
			}
			u, o := rng.Float64(), 0
			for ; o < k-1 && u >= p[o]; o++ {
				u -= p[o]
			}
			out[s][o]++
		}
	}
	return out
}

// outputCheck tests P_s(o) ≤ e^ε·P_t(o) + δ on every edge both ways and
// every output o (each community and "refused") with Clopper–Pearson
// intervals at b per interval: a violation is lo_s > e^ε·hi_t + δ. It
// returns the violations, the tests made and the largest lower
// confidence bound on ln(P_s(o)/P_t(o)) — how much loss the counts prove.
func outputCheck(g *laplacian.Graph, counts [][]int, draws int, eps, delta, b float64) (bad, tests int, proven float64) {
	type bounds struct{ lo, hi float64 }
	cp := map[int]bounds{}
	at := func(k int) bounds {
		if v, ok := cp[k]; ok {
			return v
		}
		lo, hi := clopperPearson(k, draws, b)
		cp[k] = bounds{lo, hi}
		return cp[k]
	}
	g.ForEachEdge(func(s, u int, _ float64) {
		for _, e := range [][2]int{{s, u}, {u, s}} {
			for o := range counts[e[0]] {
				tests++
				a, z := at(counts[e[0]][o]), at(counts[e[1]][o])
				if a.lo > math.Exp(eps)*z.hi+delta {
					bad++
				}
				if a.lo > 0 {
					proven = math.Max(proven, math.Log(a.lo/z.hi))
				}
			}
		}
	})
	return bad, tests, proven
}

// TestFaultOutputOracle (issue 77, item 3 and its Done-when): every edge
// of the graph (GRAPHCLOAK_FAULT_GRAPH: karate by default, pa300, or an
// edge list), the scope's default sensor model (Gaussian noise of rms
// 0.5 %, τ = 1, drift allowance privacy.DefaultDriftHops), the noise
// drawn afresh at that rms with common random numbers, and every
// imperfection of sizedFaults at 1×, 1.5× and 3×. For each ε = 1, 4:
// (1) the exact loss between the published distributions at the two
// centres of every edge and draw is ≤ ε — proven for any readings under
// DriftAny (AnyPairLoss), checked here draw by draw; (2) one answer drawn
// per source and draw, outputs counted (the refusal an output) and
// P_s(o) ≤ e^ε·P_t(o) + δ tested with Clopper–Pearson intervals
// (Bonferroni over every test at 10⁻³). The one-hop allowance of 2bb6a90
// (α = 3, cap 0) is evaluated on the same centres and logged: where its
// coupled loss passes ε it would not have held. Rows are logged for
// scripts/fault_output_oracle.sh (docs/guarantee.md's tables);
// GRAPHCLOAK_FAULT_NAMES, a regular expression, keeps the faults it matches.
func TestFaultOutputOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("every edge under every fault")
	}
	ctx := context.Background()
	g, every := faultGraph(t)
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const tau, mass, nu = 1.0, 3.0, 0.005
	m, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{SensorNoise: nu})
	if err != nil {
		t.Fatal(err)
	}
	delta, heat, draws := m.NoiseDelta(), heattest.PadeHeat(g, tau), faultDraws()
	only := -1
	if os.Getenv("GRAPHCLOAK_FAULT_SCALED_AT") != "" {
		only = (g.N() / every) * every // the last faulty sensor carries the scaled and combined faults
		if only >= g.N() {
			only -= every
		}
	}
	faults := sizedFaults(g, mass, nu, every, only)
	if re := os.Getenv("GRAPHCLOAK_FAULT_NAMES"); re != "" { // a subset, by name
		keep := regexp.MustCompile(re)
		faults = slices.DeleteFunc(faults, func(f sensorFault) bool { return !keep.MatchString(f.name) })
	}
	defaults, oneHop := map[float64]privacy.AnswerCalibration{}, map[float64]privacy.AnswerCalibration{}
	for _, eps := range []float64{1, 4} {
		d := privacy.DefaultDriftHops
		if defaults[eps], err = privacy.CalibrateAnswer(ctx, m.Geometry, eps, CalibrationAlpha(1, d), CalibrationCap(0, d)); err != nil {
			t.Fatal(err)
		}
		if err := m.CheckDrift(ctx, defaults[eps], d); err != nil {
			t.Fatal(err)
		}
		if oneHop[eps], err = privacy.CalibrateAnswer(ctx, m.Geometry, eps, CalibrationAlpha(1, 1), 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := len(faults) * 2 * 2 * g.NumEdges() * (m.Geometry.K() + 1)
	b := 1e-3 / float64(tests)
	t.Logf("graph n=%d edges=%d communities=%d draws=%d faults=%d δ=%.3g CP level b=%.3g (Bonferroni over %d tests)",
		g.N(), g.NumEdges(), m.Geometry.K(), draws, len(faults), delta, b, tests)
	start := time.Now()
	for i, f := range faults {
		c := faultCentres(t, m, heat, f, MismatchNearest, mass, nu, draws)
		for _, eps := range []float64{1, 4} {
			beyond, _, worst := couplingCheck(g, m, defaults[eps], c, eps, 1e-3)
			if beyond > 0 {
				t.Errorf("ε=%g %s: the default's coupled loss exceeded ε on %d draws (worst %.4f)", eps, f.name, beyond, worst)
			}
			bad, n, proven := outputCheck(g, outputCounts(m, defaults[eps], c, uint64(i)), draws, eps, delta, b)
			if bad > 0 {
				t.Errorf("ε=%g %s: %d of %d (edge, output) tests break P_s(o) ≤ e^ε·P_t(o) + δ", eps, f.name, bad, n)
			}
			oldBeyond, _, oldWorst := couplingCheck(g, m, oneHop[eps], c, eps, 1e-3)
			t.Logf("ROW eps=%g fault=%s draws=%d tests=%d violations=%d proven=%.4f L=%.4f acc=%.4f | onehop L=%.4f beyond=%d acc=%.4f",
				eps, f.name, draws, n, bad, proven, worst, faultAccuracy(m, defaults[eps], c), oldWorst, oldBeyond, faultAccuracy(m, oneHop[eps], c))
		}
		if i%10 == 9 {
			t.Logf("progress %d/%d faults, %s", i+1, len(faults), time.Since(start).Round(time.Second))
		}
	}
}
