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

// Whenever a budget with an answers' share ε_A admits an answer of ε
// beside Gaussian releases of ρ (in either order), the exact privacy curve
// of the worst-case pair is within the budget: the oracle is the
// composition computed from the privacy loss distribution, not from the
// accounting's own bounds. And the rule admits exactly what it should:
// ε ≤ ε_A and ρ ≤ CKSRho(ε_b − ε_A, δ_b).
func TestAnswerShareAgainstExactComposition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	beyondZCDP := 0
	for range 1000 {
		b := Budget{Epsilon: 0.5 + 9.5*rng.Float64(), Delta: math.Pow(10, -3-6*rng.Float64())}
		b.AnswerEpsilon = b.Epsilon * (0.05 + 0.9*rng.Float64())
		rhoG, err := b.Rho()
		if err != nil {
			t.Fatal(err)
		}
		if want, err := CKSRho(b.Epsilon-b.AnswerEpsilon, b.Delta); err == nil && math.Abs(rhoG-want) > 1e-12*want {
			t.Fatalf("budget %+v: ρ_max %g, want CKSRho(ε − ε_A, δ) = %g", b, rhoG, want)
		}
		whole, _ := Budget{Epsilon: b.Epsilon, Delta: b.Delta}.Rho()
		eps := b.AnswerEpsilon * 1.2 * rng.Float64() // straddles ε_A
		rho := rhoG * 1.2 * rng.Float64()            // straddles ρ_max
		if rho == 0 || math.Abs(eps/b.AnswerEpsilon-1) < 1e-9 || math.Abs(rho/rhoG-1) < 1e-9 {
			continue
		}
		answer, gauss := Charge{Rho: PureRho(eps), Epsilon: eps}, Charge{Rho: rho}
		okG := b.Admit(rhoG, "s", 0, &Spend{}, gauss) == nil
		var s1 Spend
		s1.Add(gauss)
		okGA := okG && b.Admit(rhoG, "s", 1, &s1, answer) == nil
		okA := b.Admit(rhoG, "s", 0, &Spend{}, answer) == nil
		var s2 Spend
		s2.Add(answer)
		okAG := okA && b.Admit(rhoG, "s", 1, &s2, gauss) == nil
		want := eps <= b.AnswerEpsilon && rho <= rhoG
		if okGA != want || okAG != want {
			t.Fatalf("budget %+v: answer ε = %g and Gaussian ρ = %g admitted %v (Gaussian first) / %v (answer first), want %v", b, eps, rho, okGA, okAG, want)
		}
		if !want {
			continue
		}
		if rho+PureRho(eps) > whole {
			beyondZCDP++
		}
		if d := mixedDelta(eps, math.Sqrt(2*rho), b.Epsilon); d > b.Delta*(1+1e-9) {
			t.Fatalf("budget %+v admitted an ε = %g answer beside ρ = %g, but the exact δ at ε_b is %g", b, eps, rho, d)
		}
	}
	if beyondZCDP < 300 {
		t.Fatalf("only %d admitted pairs were beyond zCDP's ρ_max: the test checks little", beyondZCDP)
	}
}

// Balance.Admits, from rounded sums, never admits what Admit refuses,
// and agrees with it away from the boundary.
func TestBalanceAdmitsIsConservative(t *testing.T) {
	for _, b := range []Budget{{Epsilon: 3, Delta: 1e-6}, {Epsilon: 3, Delta: 1e-6, AnswerEpsilon: 1.5}} {
		balanceAdmitsIsConservative(t, b)
	}
}

func balanceAdmitsIsConservative(t *testing.T, b Budget) {
	rng := rand.New(rand.NewPCG(6, 7))
	rhoMax, _ := b.Rho()
	agree := 0
	for range 2000 {
		var s Spend
		for range rng.IntN(4) {
			if rng.IntN(2) == 0 {
				s.Add(Charge{Rho: rhoMax * rng.Float64() / 2})
			} else {
				e := rng.Float64() / 2
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
			t.Fatalf("%v: Admits accepted %+v on %+v, which Admit refuses", b, c, b.BalanceOf("s", 0, rhoMax, &s))
		}
		if rounded == exact {
			agree++
		}
	}
	if agree < 1990 {
		t.Fatalf("%v: Admits agreed with Admit on %d of 2000 draws", b, agree)
	}
}

// A single answer's cost at its boundary (ε_b = 8, δ = 10⁻⁶: ρ_max ≈ 1.05):
// without a share zCDP alone admits ε ≤ √(2ρ_max) ≈ 1.45; a share ε_A
// admits ε ≤ ε_A, and the whole budget as the share admits ε = 8 (and no
// Gaussian release).
func TestPureAnswerBoundary(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	rhoMax, _ := b.Rho()
	edge := math.Sqrt(2 * rhoMax)
	for PureRho(edge) > rhoMax {
		edge = math.Nextafter(edge, 0)
	}
	for _, c := range []struct {
		b    Budget
		eps  float64
		want bool
	}{{b, edge, true}, {b, math.Nextafter(edge, 2), false}, {b, 2, false}, {b, 8, false},
		{Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, 4, true}, {Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, math.Nextafter(4, 5), false}, {Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, 8, false},
		{Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 8}, 8, true}, {Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 8}, math.Nextafter(8, 9), false}} {
		r, err := c.b.Rho()
		if err != nil {
			t.Fatal(err)
		}
		var s Spend
		if got := c.b.Admit(r, "s", 0, &s, Charge{Rho: PureRho(c.eps), Epsilon: c.eps}) == nil; got != c.want {
			t.Errorf("one ε = %v answer under %+v: admitted %v, want %v", c.eps, c.b, got, c.want)
		}
		if bal := c.b.BalanceOf("s", 0, r, &s); c.want && bal.AnswerEpsilonRemaining < c.eps {
			t.Errorf("%+v: answer ε remaining %v, but an ε = %v answer fits", c.b, bal.AnswerEpsilonRemaining, c.eps)
		}
	}
	// The whole budget as the answers' share leaves no Gaussian release.
	all := Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 8}
	if r, err := all.Rho(); err != nil || r != 0 || all.Admit(r, "s", 0, &Spend{}, Charge{Rho: 1e-9}) == nil {
		t.Errorf("ε_A = ε_b: ρ_max %v (%v), want 0 and no Gaussian release", r, err)
	}
	// The same answers charged as Gaussian releases of the same ρ
	// (no ε to account them by) are refused past ρ_max.
	var s Spend
	if b.Admit(rhoMax, "s", 0, &s, Charge{Rho: PureRho(2)}) == nil {
		t.Error("a Gaussian release of ρ = 2 > ρ_max was admitted")
	}
	// A share must be within the budget.
	for _, a := range []float64{-1, math.NaN(), math.Nextafter(8, 9), math.Inf(1)} {
		if (Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: a}).Validate() == nil {
			t.Errorf("answers' share %v of ε = 8 accepted", a)
		}
	}
}
