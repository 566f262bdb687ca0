package recovery

import (
	"math"
	"math/rand/v2"
	"slices"
)

// EvidenceTest asks whether released values can be told from pure noise.
// With ℓ_s = (μ·(Mᵀỹ)_s − ½μ²·‖M e_s‖²)/σ², the log-likelihood ratio of
// one source at s against "no source", the statistic is, with a
// partition, the largest community evidence
//
//	T(ỹ) = max_c ln( (1/|c|)·Σ_{s∈c} e^{ℓ_s} )
//
// (the likelihood ratio of "the source is somewhere in c", uniform within
// c, against no source: it pools the evidence of a community's nodes, so
// it detects a community-level signal that no single node shows), and
// without one max_s ℓ_s (the Posterior estimator's LogEvidence). Its null
// distribution is that of T(σ·z), z ~ N(0, I): Draws seeded
// draws give the Monte Carlo p-value (1 + #{T(σz) ≥ T(ỹ)})/(1 + Draws),
// valid at every sample size (Davison & Hinkley 1997, §4.2.1). A p-value
// above the level means the posterior cannot be told from the prior: the
// same ranking would come out of noise alone.
type EvidenceTest struct {
	// Draws of the null; default DefaultEvidenceDraws (p-values on a grid
	// of 1/200).
	Draws int
	// Seed of the null draws (the test is reproducible; it releases
	// nothing).
	Seed uint64
	// Partition, when set, gives each node's community id (≥ 0): the
	// statistic is then the community evidence.
	Partition []int
	// Progress, when set, is told after each null draw (done of Draws):
	// on a large graph the draws are most of a localisation's time.
	Progress func(done, total int)
}

// DefaultEvidenceDraws is EvidenceTest's number of null draws when Draws
// is 0: each one action of the model's transpose.
const DefaultEvidenceDraws = 199

// NoiseLevel is the level below which a p-value counts as evidence of a
// source: a locate result with p > NoiseLevel is noise-dominated.
const NoiseLevel = 0.05

// PValue returns T(ỹ) and its p-value for problem p (p.Y, p.Sigma,
// p.Mass on p.Model).
func (t EvidenceTest) PValue(p *Problem) (stat, pValue float64) {
	null := t.Null(p)
	stat = t.Statistic(p)
	return stat, PValueOf(stat, null)
}

// Statistic returns T(p.Y).
func (t EvidenceTest) Statistic(p *Problem) float64 {
	c := make([]float64, p.Model.n)
	p.Model.ApplyT(c, p.Y)
	return t.newStatistic(p)(c)
}

// StatisticOf returns T(y) from c = Mᵀy on p's model (c is
// overwritten): Statistic for a caller that has the correlations already
// (a simulation's trials compute them for the posterior).
func (t EvidenceTest) StatisticOf(p *Problem, c []float64) float64 {
	return t.newStatistic(p)(c)
}

// Null returns Draws sorted draws of T(σz), z ~ N(0, I), for the model,
// σ and mass of p (its data are not used): one null serves every data set
// of that model and σ.
func (t EvidenceTest) Null(p *Problem) []float64 {
	draws := t.Draws
	if draws <= 0 {
		draws = DefaultEvidenceDraws
	}
	stat := t.newStatistic(p)
	rng := rand.New(rand.NewPCG(t.Seed, 0x9e3779b97f4a7c15))
	null := make([]float64, draws)
	p.Model.ApplyTEach(draws, func(_ int, z []float64) {
		for i := range z {
			z[i] = p.Sigma * rng.NormFloat64()
		}
	}, func(d int, c []float64) {
		null[d] = stat(c)
		if t.Progress != nil {
			t.Progress(d+1, draws)
		}
	})
	slices.Sort(null)
	return null
}

// PValueOf returns (1 + #{null ≥ stat})/(1 + len(null)) for a sorted null.
func PValueOf(stat float64, null []float64) float64 {
	i, _ := slices.BinarySearch(null, stat) // first index with null[i] ≥ stat
	return float64(1+len(null)-i) / float64(1+len(null))
}

// newStatistic returns c = Mᵀy ↦ T(y) on p's model, σ and mass (c is
// overwritten).
func (t EvidenceTest) newStatistic(p *Problem) func(c []float64) float64 {
	md := p.Model
	norms, _ := md.ColumnNorms2()
	mu, s2 := p.mass(), p.Sigma*p.Sigma
	k := 0
	for _, id := range t.Partition {
		k = max(k, id+1)
	}
	size := make([]float64, k)
	for _, id := range t.Partition {
		size[id]++
	}
	top := make([]float64, k)
	acc := make([]float64, k)
	return func(c []float64) float64 {
		for s, v := range c {
			c[s] = (mu*v - 0.5*mu*mu*norms[s]) / s2
		}
		if k == 0 {
			return slices.Max(c)
		}
		// Per community log-sum-exp, shifted by its largest term.
		for i := range top {
			top[i], acc[i] = math.Inf(-1), 0
		}
		for s, l := range c {
			top[t.Partition[s]] = max(top[t.Partition[s]], l)
		}
		for s, l := range c {
			acc[t.Partition[s]] += math.Exp(l - top[t.Partition[s]])
		}
		best := math.Inf(-1)
		for i := range top {
			if size[i] > 0 {
				best = max(best, top[i]+math.Log(acc[i]/size[i]))
			}
		}
		return best
	}
}
