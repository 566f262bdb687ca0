package recovery

import (
	"math"
	"math/rand/v2"
	"slices"
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
	null := t.Null(p)
	stat = Statistic(p)
	return stat, PValueOf(stat, null)
}

// Statistic returns T(p.Y).
func Statistic(p *Problem) float64 {
	return newStatistic(p)(p.Y)
}

// Null returns Draws sorted draws of T(σz), z ~ N(0, I), for the model,
// σ and mass of p (its data are not used): one null serves every data set
// of that model and σ.
func (t EvidenceTest) Null(p *Problem) []float64 {
	draws := t.Draws
	if draws <= 0 {
		draws = 199
	}
	stat := newStatistic(p)
	rng := rand.New(rand.NewPCG(t.Seed, 0x9e3779b97f4a7c15))
	z := make([]float64, len(p.Y))
	null := make([]float64, draws)
	for d := range null {
		for i := range z {
			z[i] = p.Sigma * rng.NormFloat64()
		}
		null[d] = stat(z)
	}
	slices.Sort(null)
	return null
}

// PValueOf returns (1 + #{null ≥ stat})/(1 + len(null)) for a sorted null.
func PValueOf(stat float64, null []float64) float64 {
	i, _ := slices.BinarySearch(null, stat) // first index with null[i] ≥ stat
	return float64(1+len(null)-i) / float64(1+len(null))
}

// newStatistic returns y ↦ T(y) on p's model, σ and mass.
func newStatistic(p *Problem) func(y []float64) float64 {
	md := p.Model
	norms, _ := md.ColumnNorms2()
	mu, s2 := p.mass(), p.Sigma*p.Sigma
	c := make([]float64, md.n)
	return func(y []float64) float64 {
		md.ApplyT(c, y)
		best := math.Inf(-1)
		for s, v := range c {
			best = max(best, (mu*v-0.5*mu*mu*norms[s])/s2)
		}
		return best
	}
}
