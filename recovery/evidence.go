package recovery

import (
	"math"
	"math/rand/v2"
)

// EvidenceTest asks whether released values can be told from pure noise:
// the statistic is the single-source log-likelihood ratio against "no
// source" (the Posterior estimator's LogEvidence),
//
//	T(ỹ) = max_s (μ·(Mᵀỹ)_s − ½μ²·‖M e_s‖²)/σ²,
//
// and its null distribution is that of T(σ·z), z ~ N(0, I): Draws seeded
// draws give the Monte Carlo p-value (1 + #{T(σz) ≥ T(ỹ)})/(1 + Draws),
// valid at every sample size (Davison & Hinkley 1997, §4.2.1). A p-value
// above the level means the posterior cannot be told from the prior: the
// same ranking would come out of noise alone.
type EvidenceTest struct {
	// Draws of the null; default 199 (p-values on a grid of 1/200).
	Draws int
	// Seed of the null draws (the test is reproducible; it releases
	// nothing).
	Seed uint64
}

// NoiseLevel is the level below which a p-value counts as evidence of a
// source: a locate result with p > NoiseLevel is noise-dominated.
const NoiseLevel = 0.05

// PValue returns T(ỹ) and its p-value for problem p (p.Y, p.Sigma,
// p.Mass on p.Model).
func (t EvidenceTest) PValue(p *Problem) (stat, pValue float64) {
	draws := t.Draws
	if draws <= 0 {
		draws = 199
	}
	md := p.Model
	norms, _ := md.ColumnNorms2()
	mu, s2 := p.mass(), p.Sigma*p.Sigma
	c := make([]float64, md.n)
	statOf := func(y []float64) float64 {
		md.ApplyT(c, y)
		best := math.Inf(-1)
		for s, v := range c {
			best = max(best, (mu*v-0.5*mu*mu*norms[s])/s2)
		}
		return best
	}
	stat = statOf(p.Y)
	rng := rand.New(rand.NewPCG(t.Seed, 0x9e3779b97f4a7c15))
	z := make([]float64, len(p.Y))
	exceed := 0
	for range draws {
		for i := range z {
			z[i] = p.Sigma * rng.NormFloat64()
		}
		if statOf(z) >= stat {
			exceed++
		}
	}
	return stat, float64(1+exceed) / float64(1+draws)
}
