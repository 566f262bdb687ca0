package privacy

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

// This file replays adaptive strategies against the ledger's admission
// (Budget.Admit, the check every ledger makes; the file ledger for the
// issue's strategy) and computes, independently of any accounting bound,
// the exact δ at ε_total of what the ledger admitted.
//
// The worst case of each kind of charge: a Gaussian release of ρ = μ²/2
// is the pair N(0, 1) / N(μ, 1), whose privacy loss under P is
// N(μ²/2, μ²); an ε-DP answer is randomized response, loss +ε with
// probability p = e^ε/(1+e^ε) and −ε otherwise (Kairouz, Oh & Viswanath
// 2015). The analyst sees every output, so it knows the loss ℓ so far and
// may choose, after each Gaussian release, to answer with the largest ε the
// ledger then admits (and go on releasing what still fits) or to release
// again. δ(ε_b) = E_P[(1 − e^{ε_b − L})₊] for the loss L of the whole
// transcript, and the analyst's best rule is found by backward induction
// over (steps released, ℓ): dynamic programming over the worst-case pair.

// adaptiveStrategy is what the ledger admitted of "release up to n
// Gaussian steps of μ; after any of them answer with the rest".
type adaptiveStrategy struct {
	mu   float64   // μ of one Gaussian step, ρ = μ²/2
	n    int       // Gaussian steps admitted before any answer
	eps  []float64 // eps[j]: the largest answer admitted after j steps; 0 if none
	rest []int     // rest[j]: Gaussian steps still admitted after that answer
}

// replayAdaptive asks the ledger's admission, charge by charge, what the
// strategy "up to steps Gaussian releases of ρ, and after any number j of
// them (0 … steps) one answer with the largest ε that fits, then Gaussian
// releases of ρ while they fit (up to steps in all)" may do.
func replayAdaptive(t *testing.T, b Budget, rho float64, steps int) adaptiveStrategy {
	t.Helper()
	rhoMax, err := b.Rho()
	if err != nil {
		t.Fatal(err)
	}
	gauss := Charge{Scope: "s", ReleaseID: "g", Rho: rho}
	answer := func(e float64) Charge { return Charge{Scope: "s", ReleaseID: "a", Rho: PureRho(e), Epsilon: e} }
	s := adaptiveStrategy{mu: math.Sqrt(2 * rho)}
	var spent Spend
	for j := 0; ; j++ {
		// The largest answer admitted after j releases (Admit is monotone
		// in ε): bisection to the float.
		lo, hi := 0.0, 2*b.Epsilon
		if b.Admit(rhoMax, "s", j, &spent, answer(hi)) == nil {
			t.Fatalf("an answer of ε = %g admitted under %+v", hi, b)
		}
		if j > 0 && s.eps[j-1] > 0 { // the previous edge, when it has not moved
			if e := s.eps[j-1]; b.Admit(rhoMax, "s", j, &spent, answer(e)) == nil &&
				b.Admit(rhoMax, "s", j, &spent, answer(e*(1+1e-13))) != nil {
				lo, hi = e, e*(1+1e-13)
			}
		}
		for hi-lo > 1e-13*hi {
			mid := (lo + hi) / 2
			if b.Admit(rhoMax, "s", j, &spent, answer(mid)) == nil {
				lo = mid
			} else {
				hi = mid
			}
		}
		s.eps = append(s.eps, lo)
		rest := 0
		if lo > 0 {
			after := SpendOf(spent.Rho(), spent.PureRho(), spent.PureEpsilon())
			after.Add(answer(lo))
			for j+rest < steps && b.Admit(rhoMax, "s", j+1+rest, after, gauss) == nil {
				after.Add(gauss)
				rest++
			}
		}
		s.rest = append(s.rest, rest)
		if j == steps || b.Admit(rhoMax, "s", j, &spent, gauss) != nil {
			s.n = j
			return s
		}
		spent.Add(gauss)
	}
}

// gaussTail is E[(1 − e^{c − G})₊] for the loss G ~ N(μ²/2, μ²) of a
// Gaussian pair with μ (μ = 0: no release, (1 − e^c)₊): Balle & Wang
// 2018, Thm 8, valid for every real c.
func gaussTail(mu, c float64) float64 {
	if mu == 0 {
		return max(0, -math.Expm1(c))
	}
	return max(0, phi(mu/2-c/mu)-math.Exp(c+logPhi(-mu/2-c/mu)))
}

// delta is the exact δ at epsTotal of the analyst's best use of s, by
// backward induction on a lattice of step h = μ/hdiv (hdiv = 0: hdivFor). The Gaussian steps
// before the answer move ℓ by the lattice-sampled density of N(μ²/2, μ²)
// (its mean and variance exact to e^{−2π²hdiv²}); the answer and the
// releases after it (whose number is fixed by then) are integrated in
// closed form.
func (s adaptiveStrategy) delta(epsTotal float64, hdiv int) float64 {
	if hdiv == 0 {
		hdiv = hdivFor(s.n)
	}
	mu := s.mu
	h := mu / float64(hdiv)
	m := mu * mu / 2
	sigma := mu * math.Sqrt(float64(s.n))
	maxEps := 0.0
	for _, e := range s.eps {
		maxEps = max(maxEps, e)
	}
	k0 := int(math.Ceil((12*sigma + 2) / h))
	size := k0 + int(math.Ceil((epsTotal+maxEps+m*float64(s.n)+12*sigma+2)/h)) + 1
	K := int(math.Ceil((m + 10*mu) / h))
	w := make([]float64, 2*K+1)
	sum := 0.0
	for k := -K; k <= K; k++ {
		x := (float64(k)*h - m) / mu
		w[k+K] = math.Exp(-x * x / 2)
		sum += w[k+K]
	}
	for i := range w {
		w[i] /= sum
	}
	option := func(j int, l float64) float64 { // answer now (or, at the end without one, stop)
		rest := mu * math.Sqrt(float64(s.rest[j]))
		e := s.eps[j]
		if e == 0 {
			return gaussTail(rest, epsTotal-l)
		}
		p := 1 / (1 + math.Exp(-e))
		return p*gaussTail(rest, epsTotal-l-e) + (1-p)*gaussTail(rest, epsTotal-l+e)
	}
	v := make([]float64, size)
	next := make([]float64, size)
	for i := range v {
		v[i] = option(s.n, float64(i-k0)*h)
	}
	for j := s.n - 1; j >= 0; j-- {
		for i := range next {
			c := 0.0
			for k := -K; k <= K; k++ {
				switch ik := i + k; {
				case ik < 0: // ℓ below the lattice: δ's integrand ≈ 0 there
				case ik >= size:
					c += w[k+K] * v[size-1]
				default:
					c += w[k+K] * v[ik]
				}
			}
			if s.eps[j] > 0 {
				c = max(c, option(j, float64(i-k0)*h))
			}
			next[i] = c
		}
		v, next = next, v
	}
	return v[k0]
}

// hdivFor is a lattice fine enough for a relative 2·10⁻³ (TestAdaptiveOracle
// at 25 steps: μ/32; more steps smooth the loss, and h = μ/hdiv shrinks
// against their total σ = μ√n).
func hdivFor(n int) int { return min(32, max(8, int(math.Ceil(160/math.Sqrt(float64(max(n, 1))))))) }

// fixedAt is s with the answer only after exactly j steps: not adaptive.
func (s adaptiveStrategy) fixedAt(j int) adaptiveStrategy {
	f := adaptiveStrategy{mu: s.mu, n: j, eps: make([]float64, j+1), rest: make([]int, j+1)}
	f.eps[j], f.rest[j] = s.eps[j], s.rest[j]
	return f
}

// The oracle itself: with the answer's time fixed, the induction must give
// the closed-form curve of randomized response composed with a Gaussian
// (mixedDelta); a finer lattice must not change the adaptive value.
func TestAdaptiveOracle(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	s := adaptiveStrategy{mu: math.Sqrt(2 * 0.0414), n: 25, eps: make([]float64, 26), rest: make([]int, 26)}
	for j := range s.eps {
		c, _ := CKSEpsilon(0.0414*float64(j), b.Delta)
		s.eps[j] = b.Epsilon - c // the old split's answer after j releases
	}
	for _, j := range []int{1, 5, 12, 25} {
		got, want := s.fixedAt(j).delta(b.Epsilon, 32), mixedDelta(s.eps[j], s.mu*math.Sqrt(float64(j)), b.Epsilon)
		if math.Abs(got-want) > 2e-3*want {
			t.Errorf("answer after %d releases, not adaptive: induction δ = %.6g, closed form %.6g", j, got, want)
		}
	}
	coarse, fine := s.delta(b.Epsilon, 16), s.delta(b.Epsilon, 32)
	if math.Abs(coarse-fine) > 2e-3*fine {
		t.Errorf("adaptive δ %.6g on the lattice μ/16, %.6g on μ/32", coarse, fine)
	}
	t.Logf("the issue's strategy, answers the old split admitted: δ(8) = %.4g (lattice μ/32)", fine)
}

// TestAdaptiveSplitStrategy replays the adaptive strategy that beat the
// old "better of zCDP and Σε" rule, and a family of
// them (5 to 400 Gaussian releases of equal ρ summing to ≈ ρ_max, and after
// any of them one answer with the rest) against the ledger of a budget
// without an answers' share, and requires the exact δ at ε_total of what it
// admitted to be within δ_total. The split accounting (Σε + CKSEpsilon(ρ_G)
// ≤ ε_total, with Σε chosen as outputs arrive) admitted 1.8× δ_total at 25
// releases and 4.2× at 400.
func TestAdaptiveSplitStrategy(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	rhoMax, err := b.Rho()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		steps int
		rho   float64
	}{{25, 0.0414}} // the issue's
	family := []int{5, 10, 50, 100, 200, 400}
	if testing.Short() {
		family = []int{5, 400}
	}
	for _, n := range family {
		cases = append(cases, struct {
			steps int
			rho   float64
		}{n, 0.99 * rhoMax / float64(n)})
	}
	for _, c := range cases {
		s := replayAdaptive(t, b, c.rho, c.steps)
		d := s.delta(b.Epsilon, 0)
		t.Logf("%3d releases of ρ = %.4g (%d admitted), then the rest as one answer (ε %.4g … %.4g): δ(%g) = %.4g, budget δ = %g",
			c.steps, c.rho, s.n, s.eps[s.n], s.eps[0], b.Epsilon, d, b.Delta)
		if d > b.Delta {
			t.Errorf("%d releases of ρ = %g: the ledger admitted a strategy with δ = %.4g at ε = %g, %.2f× the budget's δ = %g",
				c.steps, c.rho, d, b.Epsilon, d/b.Delta, b.Delta)
		}
	}
}

// The file ledger admits, branch by branch, what replayAdaptive found
// Budget.Admit admits, and no larger answer.
func TestAdaptiveStrategyOnFileLedger(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	s := replayAdaptive(t, b, 0.0414, 25)
	ctx := context.Background()
	for _, j := range []int{0, 1, 7, 25} {
		if j > s.n {
			continue
		}
		l, err := CreateFileLedger(ctx, filepath.Join(t.TempDir(), "ledger.json"), b, FileLedgerOptions{}, "s")
		if err != nil {
			t.Fatal(err)
		}
		for i := range j {
			if err := l.Charge(ctx, Charge{Scope: "s", ReleaseID: "g" + string(rune('a'+i)), Rho: 0.0414}); err != nil {
				t.Fatalf("release %d of %d: %v", i+1, j, err)
			}
		}
		if e := s.eps[j]; e > 0 {
			bigger := e * (1 + 1e-9)
			if err := l.Charge(ctx, Charge{Scope: "s", ReleaseID: "big", Rho: PureRho(bigger), Epsilon: bigger}); err == nil {
				t.Fatalf("after %d releases the file ledger admitted an answer of ε = %.12g > %.12g", j, bigger, e)
			}
			if err := l.Charge(ctx, Charge{Scope: "s", ReleaseID: "a", Rho: PureRho(e), Epsilon: e}); err != nil {
				t.Fatalf("after %d releases the file ledger refused the answer of ε = %g that Admit admits: %v", j, e, err)
			}
		}
	}
}
