package recovery

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Greedy is greedy source selection with non-negative refitting
// (orthogonal matching pursuit with an NNLS refit; Pati, Rezaiifar &
// Krishnaprasad 1993, Bruckstein, Elad & Zibulevsky 2008). Masses are not
// assumed known. Each step adds the location with the largest
// log-likelihood gain of one extra source of optimal mass α ≥ 0,
//
//	gain(s) = max(0, (Mᵀr)_s)² / (2σ²‖M e_s‖²),   r = ỹ − Mf,
//
// then refits all masses by non-negative least squares on the selected
// columns (Lawson & Hanson 1974). With Problem.Sources = k > 0 it takes k
// steps; with k = 0 it stops when the best gain falls below ln(n/α),
// α = FalseAlarm: under pure noise each gain is at most ½χ²₁ and
// P(½χ²₁ > x) = erfc(√x) ≤ e^{−x}, so by a union bound over the n
// locations a spurious source is added with probability ≤ α per step.
// At most MaxSources are selected. Posterior is the average of the conditional single-source
// posteriors of each selected source given the others (with their fitted
// masses), as in Posterior. If nothing is selected the status is NoSource.
// After selection each source is moved, one at a time, to its best
// location given the others (masses refitted) while that lowers the
// residual (iterated conditional modes, as in Posterior).
type Greedy struct {
	// MaxSources caps the number of sources when k is unknown. Default 10.
	MaxSources int
	// FalseAlarm is α of the stopping rule for unknown k. Default 0.01.
	FalseAlarm float64
	// Sweeps bounds the refinement sweeps. Default 10.
	Sweeps int
}

// Name returns "greedy".
func (Greedy) Name() string { return NameGreedy }

// Estimate runs the greedy selection; see the type documentation.
func (e Greedy) Estimate(p *Problem) (*Estimate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := newGreedyFit(p)
	est := &Estimate{DualBound: math.NaN(), Gap: math.NaN(), Eta: math.NaN()}
	est.LogEvidence, est.Iterations = g.selectSources(p.Sources, e.maxSources(), e.threshold(g.md.n))
	sweeps := e.Sweeps
	if sweeps <= 0 {
		sweeps = 10
	}
	g.refine(sweeps)

	f := make([]float64, g.md.n)
	if len(g.locs) == 0 {
		est.Status = NoSource
	} else {
		for i, s := range g.locs {
			f[s] += g.mass[i]
		}
		est.Posterior = g.posterior()
		est.Locations = g.locs
		est.Status = Solved
	}
	est.F = f
	est.Residual = residualNorm(g.md, p.Y, f)
	est.Objective = est.Residual * est.Residual / (2 * g.s2)
	return est, nil
}

// maxSources is the cap on sources when k is unknown (default 10).
func (e Greedy) maxSources() int {
	if e.MaxSources <= 0 {
		return 10
	}
	return e.MaxSources
}

// threshold is the stopping rule's log-likelihood gain ln(n/α) for the
// false-alarm rate α (default 0.01).
func (e Greedy) threshold(n int) float64 {
	alpha := e.FalseAlarm
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.01
	}
	return math.Log(float64(n) / alpha)
}

// greedyFit is the state of a greedy fit: the selected locations, their
// Gram columns (MᵀM)_{·,l} and NNLS-refitted masses, with the data's
// correlations c0 = Mᵀỹ and column norms ‖M_s‖².
type greedyFit struct {
	md        *Model
	s2        float64
	norms, c0 []float64
	corr      []float64 // workspace for residual correlations
	locs      []int
	grams     [][]float64
	mass      []float64
}

func newGreedyFit(p *Problem) *greedyFit {
	n := p.Model.n
	norms, _ := p.Model.ColumnNorms2()
	c0 := make([]float64, n)
	p.Model.ApplyT(c0, p.Y)
	return &greedyFit{md: p.Model, s2: p.Sigma * p.Sigma, norms: norms, c0: c0, corr: make([]float64, n)}
}

// residualCorr sets g.corr to the correlations Mᵀ(ỹ − Σ_l m_l M_l) of the
// residual left by every selected source except skip (−1: none skipped).
func (g *greedyFit) residualCorr(skip int) []float64 {
	copy(g.corr, g.c0)
	for l, col := range g.grams {
		if l == skip {
			continue
		}
		for j := range g.corr {
			g.corr[j] -= g.mass[l] * col[j]
		}
	}
	return g.corr
}

// selectSources adds sources by largest likelihood gain c²/(2σ²‖M_s‖²),
// refitting all masses after each, until k are selected (k > 0) or, for
// unknown k (k = 0), the gain falls below thresh or maxK are selected. It
// returns the first gain (the log-evidence for a source) and the number
// selected.
func (g *greedyFit) selectSources(k, maxK int, thresh float64) (logEvidence float64, selected int) {
	if k > 0 {
		maxK = k
	}
	for len(g.locs) < maxK {
		corr := g.residualCorr(-1)
		best, bestGain := -1, 0.0
		for s := range corr {
			if g.norms[s] <= 0 || corr[s] <= 0 {
				continue
			}
			gain := corr[s] * corr[s] / (2 * g.s2 * g.norms[s])
			if gain > bestGain && !contains(g.locs, s) {
				best, bestGain = s, gain
			}
		}
		if len(g.locs) == 0 {
			logEvidence = bestGain
		}
		if best < 0 || (k == 0 && bestGain < thresh) {
			break
		}
		g.locs = append(g.locs, best)
		g.grams = append(g.grams, g.md.gramColumn(best))
		// NNLS refit on the selected columns: Gram G_il = (MᵀM)_{l_i l_j},
		// right-hand side (Mᵀỹ)_{l_i}.
		g.mass = refit(g.locs, g.grams, g.c0)
		selected++
	}
	return logEvidence, selected
}

// refine moves each source to the location with the largest gain given
// the others (their masses refitted) and keeps the move only if the
// fitted residual decreases (iterated conditional modes), for at most
// sweeps sweeps. Matching pursuit alone merges overlapping sources into
// one central pick; this undoes that.
func (g *greedyFit) refine(sweeps int) {
	for sw := 0; sw < sweeps && len(g.locs) > 1; sw++ {
		moved := false
		for i := range g.locs {
			corr := g.residualCorr(i)
			best, bestGain := g.locs[i], -1.0
			for s := range corr {
				if g.norms[s] <= 0 || corr[s] <= 0 || (s != g.locs[i] && contains(g.locs, s)) {
					continue
				}
				if gain := corr[s] * corr[s] / g.norms[s]; gain > bestGain {
					best, bestGain = s, gain
				}
			}
			if best == g.locs[i] {
				continue
			}
			nl := append([]int(nil), g.locs...)
			ng := append([][]float64(nil), g.grams...)
			nl[i], ng[i] = best, g.md.gramColumn(best)
			nm := refit(nl, ng, g.c0)
			old := g.rss(g.locs, g.grams, g.mass)
			if g.rss(nl, ng, nm) < old-1e-15*math.Abs(old) {
				g.locs, g.grams, g.mass = nl, ng, nm
				moved = true
			}
		}
		if !moved {
			break
		}
	}
}

// rss is ‖ỹ − Mf‖² − ‖ỹ‖² = Σ_ij m_i m_j G_ij − 2 Σ_i m_i (Mᵀỹ)_i for
// sources at locs with masses mass.
func (g *greedyFit) rss(locs []int, grams [][]float64, mass []float64) float64 {
	t := 0.0
	for i := range locs {
		t -= 2 * mass[i] * g.c0[locs[i]]
		for j := range locs {
			t += mass[i] * mass[j] * grams[i][locs[j]]
		}
	}
	return t
}

// posterior averages, over the selected sources, the posterior of each
// source's location given the others at their fitted masses.
func (g *greedyFit) posterior() []float64 {
	n := g.md.n
	post := make([]float64, n)
	for i := range g.locs {
		corr := g.residualCorr(i)
		a := math.Max(g.mass[i], 1e-12)
		ll := make([]float64, n)
		for s := range ll {
			ll[s] = (a*corr[s] - 0.5*a*a*g.norms[s]) / g.s2
		}
		pr := softmax(ll)
		for j := range post {
			post[j] += pr[j] / float64(len(g.locs))
		}
	}
	return post
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// refit returns the NNLS masses on the selected columns: Gram
// G_ij = (MᵀM)_{l_i l_j}, right-hand side (Mᵀỹ)_{l_i}.
func refit(locs []int, grams [][]float64, c0 []float64) []float64 {
	G := mat.NewSymDense(len(locs), nil)
	rhs := make([]float64, len(locs))
	for i := range locs {
		rhs[i] = c0[locs[i]]
		for j := i; j < len(locs); j++ {
			G.SetSym(i, j, grams[i][locs[j]])
		}
	}
	return nnlsGram(G, rhs)
}

// nnlsGram solves min ½xᵀGx − rhsᵀx s.t. x ≥ 0 by the Lawson–Hanson
// active-set method on the Gram form (k is small): the outer loop moves the
// free coordinate with the largest gradient into the passive set, the inner
// loop solves on the passive set and steps back towards the feasible x
// until that solution is positive.
func nnlsGram(G *mat.SymDense, rhs []float64) []float64 {
	k := len(rhs)
	s := &nnls{G: G, rhs: rhs, x: make([]float64, k), passive: make([]bool, k)}
	for outer := 0; outer < 3*k+10; outer++ {
		best := s.entering()
		if best < 0 {
			break
		}
		s.passive[best] = true
		for inner := 0; inner < 3*k+10; inner++ {
			z := s.solvePassive()
			if z == nil {
				s.passive[best] = false
				return s.x
			}
			if s.positiveOnPassive(z) {
				copy(s.x, z)
				break
			}
			s.stepTowards(z)
		}
	}
	return s.x
}

// nnls is the state of nnlsGram: the iterate and its passive set.
type nnls struct {
	G       *mat.SymDense
	rhs     []float64
	x       []float64
	passive []bool
}

// entering returns the free coordinate with the largest gradient
// w = rhs − Gx above 1e-14, or −1 when x is optimal.
func (s *nnls) entering() int {
	best, bw := -1, 1e-14
	for i, t := range s.rhs {
		for j, xj := range s.x {
			t -= s.G.At(i, j) * xj
		}
		if !s.passive[i] && t > bw {
			best, bw = i, t
		}
	}
	return best
}

// solvePassive solves the unconstrained problem on the passive set (zero
// elsewhere), or returns nil when that system is singular.
func (s *nnls) solvePassive() []float64 {
	var idx []int
	for i, p := range s.passive {
		if p {
			idx = append(idx, i)
		}
	}
	z := make([]float64, len(s.rhs))
	if len(idx) == 0 {
		return z
	}
	A := mat.NewDense(len(idx), len(idx), nil)
	b := mat.NewVecDense(len(idx), nil)
	for a, i := range idx {
		b.SetVec(a, s.rhs[i])
		for c, j := range idx {
			A.Set(a, c, s.G.At(i, j))
		}
	}
	var sol mat.VecDense
	if err := sol.SolveVec(A, b); err != nil {
		return nil
	}
	for a, i := range idx {
		z[i] = sol.AtVec(a)
	}
	return z
}

func (s *nnls) positiveOnPassive(z []float64) bool {
	for i, p := range s.passive {
		if p && z[i] <= 0 {
			return false
		}
	}
	return true
}

// stepTowards moves x towards z as far as x stays non-negative and frees
// the passive coordinates that reach zero.
func (s *nnls) stepTowards(z []float64) {
	alpha := 1.0
	for i, p := range s.passive {
		if p && z[i] <= 0 {
			alpha = math.Min(alpha, s.x[i]/(s.x[i]-z[i]))
		}
	}
	for i := range s.x {
		s.x[i] += alpha * (z[i] - s.x[i])
		if s.passive[i] && s.x[i] <= 1e-15 {
			s.passive[i] = false
			s.x[i] = 0
		}
	}
}
