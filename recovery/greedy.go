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
	md := p.Model
	n := md.n
	s2 := p.Sigma * p.Sigma
	norms, _ := md.ColumnNorms2()
	c0 := make([]float64, n)
	md.ApplyT(c0, p.Y)
	k := p.Sources
	maxK := k
	if k == 0 {
		maxK = e.MaxSources
		if maxK <= 0 {
			maxK = 10
		}
	}
	alpha := e.FalseAlarm
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.01
	}
	thresh := math.Log(float64(n) / alpha)
	var locs []int
	var grams [][]float64
	var mass []float64
	corr := make([]float64, n)
	est := &Estimate{DualBound: math.NaN(), Gap: math.NaN(), Eta: math.NaN()}
	for len(locs) < maxK {
		copy(corr, c0)
		for i, g := range grams {
			for j := range corr {
				corr[j] -= mass[i] * g[j]
			}
		}
		best, bestGain := -1, 0.0
		for s := 0; s < n; s++ {
			if norms[s] <= 0 || corr[s] <= 0 {
				continue
			}
			g := corr[s] * corr[s] / (2 * s2 * norms[s])
			if g > bestGain && !contains(locs, s) {
				best, bestGain = s, g
			}
		}
		if len(locs) == 0 {
			est.LogEvidence = bestGain
		}
		if best < 0 || (k == 0 && bestGain < thresh) {
			break
		}
		locs = append(locs, best)
		grams = append(grams, md.gramColumn(best))
		// NNLS refit on the selected columns: Gram G_il = (MᵀM)_{l_i l_j},
		// right-hand side (Mᵀỹ)_{l_i}.
		mass = refit(locs, grams, c0)
		est.Iterations++
	}
	// Refinement (iterated conditional modes): move each source to the
	// location with the largest gain given the others (with their masses
	// refitted), keep the move only if the fitted residual decreases.
	// Matching pursuit alone merges overlapping sources into one central
	// pick; this undoes that. At most Sweeps sweeps.
	sweeps := e.Sweeps
	if sweeps <= 0 {
		sweeps = 10
	}
	rss := func(locs []int, grams [][]float64, mass []float64) float64 {
		// ‖ỹ − Mf‖² − ‖ỹ‖² = Σ_ij m_i m_j G_ij − 2 Σ_i m_i (Mᵀỹ)_i.
		t := 0.0
		for i := range locs {
			t -= 2 * mass[i] * c0[locs[i]]
			for j := range locs {
				t += mass[i] * mass[j] * grams[i][locs[j]]
			}
		}
		return t
	}
	for sw := 0; sw < sweeps && len(locs) > 1; sw++ {
		moved := false
		for i := range locs {
			copy(corr, c0)
			for l, g := range grams {
				if l == i {
					continue
				}
				for j := range corr {
					corr[j] -= mass[l] * g[j]
				}
			}
			best, bestGain := locs[i], -1.0
			for s := 0; s < n; s++ {
				if norms[s] <= 0 || corr[s] <= 0 || (s != locs[i] && contains(locs, s)) {
					continue
				}
				if g := corr[s] * corr[s] / norms[s]; g > bestGain {
					best, bestGain = s, g
				}
			}
			if best == locs[i] {
				continue
			}
			nl := append([]int(nil), locs...)
			ng := append([][]float64(nil), grams...)
			nl[i], ng[i] = best, md.gramColumn(best)
			nm := refit(nl, ng, c0)
			if rss(nl, ng, nm) < rss(locs, grams, mass)-1e-15*math.Abs(rss(locs, grams, mass)) {
				locs, grams, mass = nl, ng, nm
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	f := make([]float64, n)
	if len(locs) == 0 {
		est.F = f
		est.Status = NoSource
		est.Residual = residualNorm(md, p.Y, f)
		est.Objective = est.Residual * est.Residual / (2 * s2)
		return est, nil
	}
	post := make([]float64, n)
	for i := range locs {
		copy(corr, c0)
		for l, g := range grams {
			if l == i {
				continue
			}
			for j := range corr {
				corr[j] -= mass[l] * g[j]
			}
		}
		a := math.Max(mass[i], 1e-12)
		ll := make([]float64, n)
		for s := 0; s < n; s++ {
			ll[s] = (a*corr[s] - 0.5*a*a*norms[s]) / s2
		}
		pr := softmax(ll)
		for j := range post {
			post[j] += pr[j] / float64(len(locs))
		}
	}
	for i, s := range locs {
		f[s] += mass[i]
	}
	est.F = f
	est.Posterior = post
	est.Locations = locs
	est.Status = Solved
	est.Residual = residualNorm(md, p.Y, f)
	est.Objective = est.Residual * est.Residual / (2 * s2)
	return est, nil
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
// active-set method on the Gram form (k is small).
func nnlsGram(G *mat.SymDense, rhs []float64) []float64 {
	k := len(rhs)
	x := make([]float64, k)
	passive := make([]bool, k)
	grad := func() []float64 { // w = rhs − Gx
		w := make([]float64, k)
		for i := 0; i < k; i++ {
			t := rhs[i]
			for j := 0; j < k; j++ {
				t -= G.At(i, j) * x[j]
			}
			w[i] = t
		}
		return w
	}
	solveP := func() []float64 {
		var idx []int
		for i := 0; i < k; i++ {
			if passive[i] {
				idx = append(idx, i)
			}
		}
		z := make([]float64, k)
		if len(idx) == 0 {
			return z
		}
		A := mat.NewDense(len(idx), len(idx), nil)
		b := mat.NewVecDense(len(idx), nil)
		for a, i := range idx {
			b.SetVec(a, rhs[i])
			for c, j := range idx {
				A.Set(a, c, G.At(i, j))
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
	for outer := 0; outer < 3*k+10; outer++ {
		w := grad()
		best, bw := -1, 1e-14
		for i := 0; i < k; i++ {
			if !passive[i] && w[i] > bw {
				best, bw = i, w[i]
			}
		}
		if best < 0 {
			break
		}
		passive[best] = true
		for inner := 0; inner < 3*k+10; inner++ {
			z := solveP()
			if z == nil {
				passive[best] = false
				return x
			}
			ok := true
			for i := 0; i < k; i++ {
				if passive[i] && z[i] <= 0 {
					ok = false
				}
			}
			if ok {
				copy(x, z)
				break
			}
			alpha := 1.0
			for i := 0; i < k; i++ {
				if passive[i] && z[i] <= 0 {
					alpha = math.Min(alpha, x[i]/(x[i]-z[i]))
				}
			}
			for i := 0; i < k; i++ {
				x[i] += alpha * (z[i] - x[i])
				if passive[i] && x[i] <= 1e-15 {
					passive[i] = false
					x[i] = 0
				}
			}
		}
	}
	return x
}
