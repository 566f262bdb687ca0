package recovery

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Gaussian sensor noise (docs/derivations.md §5.1b). An operator states
// the sensors' noise as they know it: each reading's noise is independent,
// mean zero, Gaussian with standard deviation at most ν·μ/n (ν the stated
// rms as a fraction of the source's mean reading μ/n). Such noise has no
// bound, so the certifier's model — a hard bound ‖P·e‖ ≤ ν_m·μ/√n — is
// widened to ν_m = ModelNoiseBound(ν, n), far enough that noise of up to
// NoiseMargin times the stated rms leaves it with probability at most
// NoiseExitTarget. That probability, δ₀ = NoiseExitProbability, does not
// depend on where the source is (neither the bound nor the noise does),
// so the answer — refusal or randomized response included — is
// (ε, δ₀)-DP.

// NoiseMargin H: the δ printed covers Gaussian noise of up to H times the
// stated rms, so an rms misjudged by half is still inside the guarantee.
const NoiseMargin = 1.5

// NoiseExitTarget is the largest δ₀ ModelNoiseBound allows at NoiseMargin
// times the stated rms: widening the model costs little more than the
// margin itself where n is large (ν_m = 2.79ν on karate's 34 nodes, 1.91ν
// on 300, 1.55ν on 2·10⁴), and at 10⁻⁹ an answers' δ share of 10⁻⁶ pays a
// thousand answers.
const NoiseExitTarget = 1e-9

// ChiSquareTail returns a proven upper bound on P(χ²_k ≥ k·t): the
// Chernoff bound exp(−(k/2)(t − 1 − ln t)) (from E e^{λχ²_k} =
// (1−2λ)^{−k/2} at λ = (1 − 1/t)/2), and the Laurent–Massart bound
// P(χ²_k ≥ k + 2√(kx) + 2x) ≤ e^{−x} (Ann. Statist. 28(5), 2000, Lemma 1),
// whichever is smaller, rounded up; 1 for t ≤ 1.
func ChiSquareTail(k int, t float64) float64 {
	if !(t > 1) || k < 1 {
		return 1
	}
	kf := float64(k)
	// Chernoff: the exponent computed with log1p for t near 1, then a
	// relative margin for its rounding.
	d := t - 1
	expo := kf / 2 * (d - math.Log1p(d))
	b := math.Exp(-expo * (1 - 1e-12))
	// Laurent–Massart: kt = k + 2√(kx) + 2x ⇔ √x = (−√k + √(k + 2(kt−k)))/2
	// (the positive root of 2u² + 2√k·u − k·d = 0).
	u := (-math.Sqrt(kf) + math.Sqrt(kf+2*kf*d)) / 2
	x := u * u * (1 - 1e-12)
	b = math.Min(b, math.Exp(-x))
	return tailUp(b)
}

// tailUp rounds a tail bound up, and never to 0: the tails bounded here
// are positive at every finite point, and a bound that underflowed would
// print δ = 0 (the noise never leaves the model) where it is 1e-2276.
func tailUp(b float64) float64 {
	return math.Min(1, math.Max(b*(1+1e-12), math.SmallestNonzeroFloat64))
}

// normalTail2 bounds P(|Z| > x) for a standard normal Z: ≤ exp(−x²/2)
// (2·Φ̄(x) ≤ e^{−x²/2} for x ≥ 0).
func normalTail2(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	return tailUp(math.Exp(-x * x / 2 * (1 - 1e-12)))
}

// NoiseExitProbability returns δ₀, a proven upper bound on the
// probability that independent mean-zero Gaussian noise of standard
// deviation at most h·ν·μ/n per sensor leaves the model of bound ν_m
// (model, the certifier's NoiseBound) on n sensors with background bound
// B (maxBackground), for readings whose own background is at most B/2:
//
//	‖P·e‖² ≤ ‖e‖² ≤ (hνμ/n)²·χ²_n, exit ⇒ χ²_n > n·(ν_m/(hν))²;
//	n·|ē| ~ N(0, ≤ (hνμ)²/n), exit ⇒ n·|ē| > B·μ/2 ⇒ |Z| > B·√n/(2hν).
//
// Both are independent of the source and of its position.
func NoiseExitProbability(nu, h, model, maxBackground float64, n int) float64 {
	if nu == 0 {
		return 0
	}
	r := model / (h * nu)
	p := ChiSquareTail(n, r*r)
	if maxBackground > 0 && !math.IsInf(maxBackground, 1) {
		p += normalTail2(maxBackground * math.Sqrt(float64(n)) / (2 * h * nu))
	}
	return math.Min(1, p)
}

// SensorNoiseFromRMS is ν for Gaussian noise of rms s in reading units on
// n sensors, for sources of mass at least minMass: ν = s·n/minMass (a
// heavier source's relative rms s·n/μ is smaller, and everything is
// monotone in it).
func SensorNoiseFromRMS(s, minMass float64, n int) float64 {
	return s * float64(n) / minMass
}

// ModelNoiseBound returns ν_m, the model's hard noise bound for stated
// Gaussian rms ν on n sensors: the smallest bound (to one part in 10⁶,
// rounded up) whose χ² exit bound at NoiseMargin·ν is ≤ NoiseExitTarget.
// 0 for ν = 0.
func ModelNoiseBound(nu float64, n int) float64 {
	if !(nu > 0) || n < 1 {
		return 0
	}
	ok := func(r float64) bool { return ChiSquareTail(n, r*r) <= NoiseExitTarget }
	lo, hi := 1.0, 2.0
	for !ok(hi) {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-7*hi {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return NoiseMargin * nu * hi * (1 + 1e-6)
}

// maxStatedNoise is the largest stated ν whose model bound
// ModelNoiseBound(ν, n) ToleranceFor admits at the weakest source signal
// s = √n·min‖P·a_j‖ (T ≤ 0.5 there: a bound ≤ s/(3+2·10⁻⁶)), rounded
// down to three significant digits so that the printed value is admitted.
func maxStatedNoise(s float64, n int) float64 {
	nu := s / (3 + 3e-6) / ModelNoiseBound(1, n)
	if !(nu > 0) || math.IsInf(nu, 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(nu))-2)
	return math.Floor(nu/p) * p
}

// NoiseExitTimes are the multiples of the stated rms at which plan prints
// the probability that the noise leaves the model (NoiseExit): 1.5× is the
// δ the answer covers; beyond it is the cliff.
var NoiseExitTimes = []float64{1, 1.5, 2, 3}

// NoiseExit is the probability that Gaussian noise of Times the stated
// rms leaves the model.
type NoiseExit struct {
	Times       float64 `json:"times"`
	Probability float64 `json:"probability"`
}

// NoiseExitCurve returns, at each of NoiseExitTimes, the probability that
// independent Gaussian noise of that many times the stated rms ν per
// sensor leaves the model of bound ν_m (model) with background bound B on
// n sensors, for readings whose own background is at most B/2: the exact
// χ²_n tail of ‖e‖² plus the exact normal tail of its mean, their sum (a
// union bound, at least the larger). Unlike NoiseExitProbability it is
// not rounded up to a proven bound: it shows where the model's edge is.
func NoiseExitCurve(nu, model, maxBackground float64, n int) []NoiseExit {
	if !(nu > 0) {
		return nil
	}
	out := make([]NoiseExit, len(NoiseExitTimes))
	chi := distuv.ChiSquared{K: float64(n)}
	for i, h := range NoiseExitTimes {
		r := model / (h * nu)
		p := chi.Survival(float64(n) * r * r)
		if maxBackground > 0 && !math.IsInf(maxBackground, 1) {
			p += math.Erfc(maxBackground * math.Sqrt(float64(n)) / (2 * h * nu) / math.Sqrt2)
		}
		out[i] = NoiseExit{Times: h, Probability: math.Min(1, p)}
	}
	return out
}

// NoiseExitCurve is NoiseExitCurve for this certifier's model.
func (c *Certifier) NoiseExitCurve(nu float64) []NoiseExit {
	return NoiseExitCurve(nu, c.NoiseBound(), c.maxBackground, c.g.N())
}
