package privacy

import (
	"math"
	"math/big"
	"testing"
)

// bruteRRDelta is the oracle: the hockey-stick divergence
// Σ_o max(0, P(o) − e^{ε_t}·Q(o)) between k-fold binary randomized
// response on the two inputs, over all 2^k outputs.
func bruteRRDelta(eps float64, k int, epsTotal float64) float64 {
	p := math.Exp(eps) / (1 + math.Exp(eps))
	d := 0.0
	for mask := 0; mask < 1<<k; mask++ {
		P, Q := 1.0, 1.0
		for i := 0; i < k; i++ {
			if mask>>i&1 == 1 {
				P, Q = P*p, Q*(1-p)
			} else {
				P, Q = P*(1-p), Q*p
			}
		}
		d += math.Max(0, P-math.Exp(epsTotal)*Q)
	}
	return d
}

func TestPureCompositionDelta(t *testing.T) {
	for _, eps := range []float64{0.1, 0.5, 1, 3} {
		for _, k := range []int{1, 2, 5, 10} {
			for _, et := range []float64{0, 0.3, 1, 2.5, float64(k) * eps * 0.7} {
				got, want := PureCompositionDelta(eps, k, et), bruteRRDelta(eps, k, et)
				if math.Abs(got-want) > 1e-11*math.Max(1, want)+1e-15 || got < want-1e-15 {
					t.Errorf("ε=%g k=%d ε_t=%g: δ = %.15g, brute force %.15g", eps, k, et, got, want)
				}
			}
		}
	}
	// One ε-DP release is (ε, 0)-DP and not (ε′, 0) for ε′ < ε.
	if d := PureCompositionDelta(1, 1, 1); d != 0 {
		t.Errorf("k=1 at ε_t = ε: δ = %g, want 0", d)
	}
	// Kairouz–Oh–Viswanath Thm 3.3 on its grid: ε_t = (k − 2i)ε.
	eps, k := 0.5, 7
	for i := 0; i <= k/2; i++ {
		var di float64
		for l := 0; l < i; l++ {
			di += binom(k, l) * (math.Exp(float64(k-l)*eps) - math.Exp(float64(k-2*i+l)*eps))
		}
		di /= math.Pow(1+math.Exp(eps), float64(k))
		if got := PureCompositionDelta(eps, k, float64(k-2*i)*eps); math.Abs(got-di) > 1e-12 {
			t.Errorf("i=%d: δ = %.15g, KOV δ_i = %.15g", i, got, di)
		}
	}
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// TestBudgetBuys: the optimal accountants never buy fewer releases than
// zCDP, they buy strictly more where zCDP's conversion is loose (one answer
// at ε = budget ε), every count is exact at its edge, and the ledger buys
// what its rule admits (with and without an answers' share).
func TestBudgetBuys(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	for _, eps := range []float64{0.5, 1, 2, 8} {
		got, err := AnswersBudgetBuys(b, eps)
		if err != nil {
			t.Fatal(err)
		}
		if got.Optimal < got.ZCDP {
			t.Errorf("answers ε=%g: optimal %d < zCDP %d", eps, got.Optimal, got.ZCDP)
		}
		if PureCompositionDelta(eps, got.Optimal, b.Epsilon) > b.Delta || PureCompositionDelta(eps, got.Optimal+1, b.Epsilon) <= b.Delta {
			t.Errorf("answers ε=%g: %d is not the largest count within the budget", eps, got.Optimal)
		}
	}
	one, _ := AnswersBudgetBuys(b, 8)
	if one.Optimal != 1 || one.ZCDP != 0 || one.Ledger != 0 {
		t.Errorf("one answer at ε = 8 in a budget of ε = 8 without a share: %+v, want optimal 1, zCDP 0, ledger 0", one)
	}
	if one, _ := AnswersBudgetBuys(Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 8}, 8); one.Ledger != 1 {
		t.Errorf("one answer at ε = 8 with the whole budget as the answers' share: ledger buys %d, want 1", one.Ledger)
	}
	// Without a share the ledger buys what zCDP does; with a share ε_A,
	// ⌊ε_A/ε⌋ answers — never more than the optimal composition.
	for _, eps := range []float64{0.05, 0.5, 1, 2, 2.7, 4} {
		got, _ := AnswersBudgetBuys(b, eps)
		if got.Ledger != got.ZCDP {
			t.Errorf("answers ε=%g without a share: ledger buys %d, want zCDP's %d", eps, got.Ledger, got.ZCDP)
		}
		for _, share := range []float64{1, 4, 8} {
			got, _ := AnswersBudgetBuys(Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: share}, eps)
			want := int(math.Floor(share / eps))
			for new(big.Rat).Mul(big.NewRat(int64(want+1), 1), new(big.Rat).SetFloat64(eps)).Cmp(new(big.Rat).SetFloat64(share)) <= 0 {
				want++ // k·ε ≤ ε_A exactly, in the float64 values charged
			}
			for new(big.Rat).Mul(big.NewRat(int64(want), 1), new(big.Rat).SetFloat64(eps)).Cmp(new(big.Rat).SetFloat64(share)) > 0 {
				want--
			}
			if got.Ledger != want || got.Ledger > got.Optimal {
				t.Errorf("answers ε=%g, ε_A = %g: ledger buys %d, want ⌊ε_A/ε⌋ = %d ≤ optimal %d", eps, share, got.Ledger, want, got.Optimal)
			}
		}
	}
	for _, r := range []float64{1, 2, 5} {
		got, err := GaussianBudgetBuys(b, r)
		if err != nil {
			t.Fatal(err)
		}
		if got.Optimal < got.ZCDP || got.Ledger != got.ZCDP {
			t.Errorf("gaussian σ/Δ=%g: optimal %d < zCDP %d, or ledger %d ≠ zCDP", r, got.Optimal, got.ZCDP, got.Ledger)
		}
		shared, _ := GaussianBudgetBuys(Budget{Epsilon: 8, Delta: 1e-6, AnswerEpsilon: 4}, r)
		rhoG, _ := CKSRho(4, 1e-6)
		if want := int(math.Floor(rhoG * 2 * r * r)); shared.Ledger != want || shared.ZCDP != got.ZCDP {
			t.Errorf("gaussian σ/Δ=%g, ε_A = 4: ledger buys %d, want ⌊CKSRho(4, δ)·2(σ/Δ)²⌋ = %d", r, shared.Ledger, want)
		}
	}
}
