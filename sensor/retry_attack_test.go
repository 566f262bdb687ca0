package sensor

import (
	"fmt"
	"math"
	"testing"
)

// dgaussNorm is Σ_z exp(−z²/2s2), the discrete Gaussian's normaliser.
func dgaussNorm(s2 float64) float64 {
	norm := 0.0
	for x := -int64(12*math.Sqrt(s2)) - 1; x <= int64(12*math.Sqrt(s2))+1; x++ {
		norm += math.Exp(-float64(x*x) / (2 * s2))
	}
	return norm
}

// The issue-78 audit's attack: after one report of 7.3 at σ = 3.46 (k = 3),
// a coordinator signs 2 000 orders with the same release id but another
// epoch, k ∈ {3, 4, 5} and σ̃² at σ ≈ 3.46–3.5, and reads the answered/
// refused bits; the answer to order j says whether round(y·2^k_j) + Z_j
// equals the recorded grid r0. A maximum-likelihood estimate of y over
// those bits is what it recovers. A sensor that never redraws answers
// none of them: nothing to estimate.
func TestRetryOracleAttack(t *testing.T) {
	const reading, orders = 7.3, 2000
	r := newRig(t)
	base := coarseOrder(3, 766) // σ = √766/8 = 3.4597
	s := r.sensor("n1", Policy{Alpha: 1, SigmaFloor: 3.4, MaxEpsilonPerDay: 1e6})
	first, err := s.Report(r.sign(base), reading)
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		k        int
		s2, norm float64
		answered bool
	}
	probes := make([]probe, orders)
	answered := 0
	for j := range probes {
		o := base
		o.Epoch = fmt.Sprintf("atk-%d", j)
		o.Sampler.GridExponent = 3 + j%3
		o.Sampler.GridVariance = 766<<(2*(j%3)) + uint64(j/3%50)
		_, err := s.Report(r.sign(o), reading)
		s2 := float64(o.Sampler.GridVariance)
		probes[j] = probe{o.Sampler.GridExponent, s2, dgaussNorm(s2), err == nil}
		if err == nil {
			answered++
		}
	}
	if answered == 0 {
		t.Logf("retry oracle: %d orders, 0 answered, odometer unchanged: nothing to estimate", orders)
		return
	}
	best, bestLL := 0.0, math.Inf(-1)
	ll := map[float64]float64{}
	for y := -10.0; y <= 25; y += 0.01 {
		sum := 0.0
		for _, p := range probes {
			z := float64(first.Grid - int64(math.Round(math.Ldexp(y, p.k))))
			pz := math.Exp(-z*z/(2*p.s2)) / p.norm
			if p.answered {
				sum += math.Log(pz)
			} else {
				sum += math.Log1p(-pz)
			}
		}
		ll[y] = sum
		if sum > bestLL {
			best, bestLL = y, sum
		}
	}
	lo, hi := best, best // the likelihood interval: log L within 0.5 of its maximum
	for y, v := range ll {
		if v >= bestLL-0.5 {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	t.Errorf("retry oracle: %d of %d orders answered; the reading %v estimated as %.2f (log-likelihood interval [%.2f, %.2f]) after one report of %v at σ = %.3f",
		answered, orders, reading, best, lo, hi, first.Value, base.Sigma())
}
