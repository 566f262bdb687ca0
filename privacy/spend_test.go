package privacy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// mixedDelta is the exact δ(ε) of randomized response with parameter
// eps composed with a continuous Gaussian mechanism of μ = Δ/σ: the
// worst-case pair of an ε-DP answer and a Gaussian release of
// ρ = μ²/2. Its privacy loss is ±eps (probabilities p = e^eps/(1+e^eps)
// and 1 − p) plus N(μ²/2, μ²), so δ(ε) = E[(1 − e^{ε−L})₊] =
// p·g(ε − eps) + (1 − p)·g(ε + eps), g(c) = Φ(μ/2 − c/μ) − e^c Φ(−μ/2 − c/μ)
// (Balle & Wang 2018, Thm 8; valid for every real c).
func mixedDelta(eps, mu, epsTotal float64) float64 {
	g := func(c float64) float64 {
		return phi(mu/2-c/mu) - math.Exp(c+logPhi(-mu/2-c/mu))
	}
	p := 1 / (1 + math.Exp(-eps))
	return p*g(epsTotal-eps) + (1-p)*g(epsTotal+eps)
}

// Whenever the split accounting admits an answer of ε beside Gaussian
// releases of ρ, the exact privacy curve of the worst-case pair is within
// the budget: the oracle is the composition computed from the privacy
// loss distribution, not from the accounting's own bounds. And each
// accounting admits what it should, at its boundary.
func TestSplitAccountingAgainstExactComposition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	admittedBySplit := 0
	for range 1000 {
		b := Budget{Epsilon: 0.5 + 9.5*rng.Float64(), Delta: math.Pow(10, -3-6*rng.Float64())}
		rhoMax, err := b.Rho()
		if err != nil {
			t.Fatal(err)
		}
		eps := b.Epsilon * rng.Float64()
		room, err := CKSRho(b.Epsilon-eps, b.Delta) // the split accounting's bound, straddled
		if err != nil {
			continue
		}
		rho := room * 1.2 * rng.Float64()
		var s Spend
		s.Add(Charge{Rho: rho})
		ok := b.Admit(rhoMax, "s", 1, &s, Charge{Rho: PureRho(eps), Epsilon: eps}) == nil
		if !ok {
			continue
		}
		if rho+PureRho(eps) > rhoMax {
			admittedBySplit++
		}
		if d := mixedDelta(eps, math.Sqrt(2*rho), b.Epsilon); d > b.Delta*(1+1e-9) {
			t.Fatalf("budget %+v admitted an ε = %g answer beside ρ = %g, but the exact δ at ε_b is %g", b, eps, rho, d)
		}
	}
	if admittedBySplit < 300 {
		t.Fatalf("only %d draws were admitted by the split accounting alone: the test checks little", admittedBySplit)
	}
}

// Balance.Admits, from rounded sums, never admits what Admit refuses,
// and agrees with it away from the boundary.
func TestBalanceAdmitsIsConservative(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	b := Budget{Epsilon: 3, Delta: 1e-6}
	rhoMax, _ := b.Rho()
	agree := 0
	for range 2000 {
		var s Spend
		for range rng.IntN(4) {
			if rng.IntN(2) == 0 {
				s.Add(Charge{Rho: rhoMax * rng.Float64() / 2})
			} else {
				e := rng.Float64()
				s.Add(Charge{Rho: PureRho(e), Epsilon: e})
			}
		}
		c := Charge{Rho: rhoMax * rng.Float64() / 2}
		if rng.IntN(2) == 0 {
			e := 2 * rng.Float64()
			c = Charge{Rho: PureRho(e), Epsilon: e}
		}
		exact := b.Admit(rhoMax, "s", 0, &s, c) == nil
		rounded := b.BalanceOf("s", 0, rhoMax, &s).Admits(c)
		if rounded && !exact {
			t.Fatalf("Admits accepted %+v on %+v, which Admit refuses", c, b.BalanceOf("s", 0, rhoMax, &s))
		}
		if rounded == exact {
			agree++
		}
	}
	if agree < 1990 {
		t.Fatalf("Admits agreed with Admit on %d of 2000 draws", agree)
	}
}

// A single answer's cost: what each accounting alone says, at its
// boundary (ε_b = 8, δ = 10⁻⁶: ρ_max ≈ 1.1, so zCDP admits ε ≤ 1.5).
func TestPureAnswerBoundary(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	rhoMax, _ := b.Rho()
	for _, c := range []struct {
		eps  float64
		want bool
	}{{math.Sqrt(2 * rhoMax), true}, {2, true}, {8, true}, {math.Nextafter(8, 9), false}, {9, false}} {
		var s Spend
		if got := b.Admit(rhoMax, "s", 0, &s, Charge{Rho: PureRho(c.eps), Epsilon: c.eps}) == nil; got != c.want {
			t.Errorf("one ε = %v answer under %+v: admitted %v, want %v", c.eps, b, got, c.want)
		}
	}
	// The same answers charged as Gaussian releases of the same ρ
	// (no ε to account them by) are refused past ρ_max.
	var s Spend
	if b.Admit(rhoMax, "s", 0, &s, Charge{Rho: PureRho(2)}) == nil {
		t.Error("a Gaussian release of ρ = 2 > ρ_max was admitted")
	}
}
