package sensitivity

import (
	"math"
	"runtime"
	"sync"

	"github.com/graphcloak/graphcloak/laplacian"
	"gonum.org/v1/gonum/mat"
)

// radauWork is the workspace of bound(i, j), a proven upper bound on
// q_e = b_eᵀ exp(−2τL) b_e, b_e = e_i − e_j, from the 3-hop neighbourhood
// of the edge (i, j): a three-free-node Gauss–Radau-type bound made rigorous.
//
// Let P be the Hermite interpolant of f(x) = e^{−2τx} at the nodes
// (0; θ1, θ1; θ2, θ2; θ3, θ3) for ANY distinct θ_k > 0. The interpolation
// remainder is
//
//	f(x) − P(x) = f⁽⁷⁾(ξ)/7! · x(x−θ1)²(x−θ2)²(x−θ3)² ≤ 0   for x ≥ 0,
//
// since f⁽⁷⁾ < 0, so P ≥ f on spec(L) ⊂ [0, B] and q_e ≤ b_eᵀ P(L) b_e.
// In Newton form P = Σ_m d_m ω_m with divided differences d_m (computed
// here in interval arithmetic, so their exact values are enclosed) and
// ν_m = b_eᵀ ω_m(L) b_e, evaluated from the Krylov vectors L^p b_e (p ≤ 3)
// with a running floating-point error bound. The bound is tightest when the
// θ_k are the Gauss–Radau nodes (the Gauss nodes of the measure x·dμ_e,
// Golub & Meurant, "Matrices, Moments and Quadrature", 2010, §6.2); they are
// estimated from the moments and need not be accurate for validity.
//
// bound returns +Inf when the construction degenerates (the caller then keeps
// its cheaper bounds).
type radauWork struct {
	g     *laplacian.Graph
	tau   float64
	B     float64
	dmax  float64
	wmax  int
	stamp []int32 // stamp[v] == cur ⇔ v ∈ S, position pos[v]
	pos   []int32
	cur   int32
	S     []int32
	level [3]int // S[:level[k]] is the k-hop ball (k ≤ 2)
	k     [4][]float64
	tmp   [6][]float64
}

// newRadauWorks returns one workspace per worker for radauBounds.
func newRadauWorks(g *laplacian.Graph, tau, B float64, wmax int) []*radauWork {
	works := make([]*radauWork, runtime.GOMAXPROCS(0))
	for p := range works {
		works[p] = newRadauWork(g, tau, B, wmax)
	}
	return works
}

func newRadauWork(g *laplacian.Graph, tau, B float64, wmax int) *radauWork {
	n := g.N()
	return &radauWork{g: g, tau: tau, B: B, dmax: g.MaxDegree(), wmax: wmax,
		stamp: make([]int32, n), pos: make([]int32, n)}
}

func (r *radauWork) grow(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n, 2*n)
	}
	return v[:n]
}

// ball collects the 2-hop neighbourhood of {i, j} in BFS level order and
// returns an upper bound on the size of the 3-hop neighbourhood.
func (r *radauWork) ball(i, j int) int {
	r.cur++
	if r.cur == math.MaxInt32 {
		clear(r.stamp)
		r.cur = 1
	}
	r.S = r.S[:0]
	r.add(int32(i))
	r.add(int32(j))
	r.level[0] = len(r.S)
	lo := 0
	for lev := 1; lev <= 2; lev++ {
		hi := len(r.S)
		for _, v := range r.S[lo:hi] {
			cols, _ := r.g.Neighbors(int(v))
			for _, c := range cols {
				r.add(c)
			}
		}
		lo = hi
		r.level[lev] = len(r.S)
	}
	size := len(r.S)
	for _, v := range r.S[r.level[1]:r.level[2]] {
		cols, _ := r.g.Neighbors(int(v))
		size += len(cols)
	}
	return size
}

func (r *radauWork) add(v int32) int32 {
	if r.stamp[v] != r.cur {
		r.stamp[v] = r.cur
		r.pos[v] = int32(len(r.S))
		r.S = append(r.S, v)
	}
	return r.pos[v]
}

// scatter sets y = L x where x is supported on S[:src]; y must be zero on
// entry. Targets outside S are appended to S (y must be long enough).
func (r *radauWork) scatter(y, x []float64, src int) {
	deg := r.g.Degrees()
	for p := 0; p < src; p++ {
		xv := x[p]
		if xv == 0 {
			continue
		}
		v := int(r.S[p])
		y[p] += deg[v] * xv
		cols, ws := r.g.Neighbors(v)
		for k, c := range cols {
			q := r.add(c)
			if ws == nil {
				y[q] -= xv
			} else {
				y[q] -= ws[k] * xv
			}
		}
	}
}

func vecDot(x, y []float64) float64 {
	s := 0.0
	for k := range x {
		s += x[k] * y[k]
	}
	return s
}

func vecNorm(x []float64) float64 { return math.Sqrt(vecDot(x, x)) * (1 + highamGamma(len(x)+2)) }

// axpy sets z = x − θ·y.
func vecAxpy(z, x []float64, theta float64, y []float64) {
	for k := range z {
		z[k] = x[k] - theta*y[k]
	}
}

func (r *radauWork) bound(i, j int) float64 {
	size := r.ball(i, j)
	for p := range r.k {
		r.k[p] = r.grow(r.k[p], size)
		clear(r.k[p])
	}
	K0, K1, K2, K3 := r.k[0], r.k[1], r.k[2], r.k[3]
	K0[0], K0[1] = 1, -1 // i and j are S[0], S[1]
	r.scatter(K1, K0, r.level[0])
	r.scatter(K2, K1, r.level[1])
	r.scatter(K3, K2, r.level[2])
	n := len(r.S)
	K0, K1, K2, K3 = K0[:n], K1[:n], K2[:n], K3[:n]
	for p := range r.tmp {
		r.tmp[p] = r.grow(r.tmp[p], n)
	}

	// Supports: K_p lives on the p-hop ball S[:sup_p]; every buffer is zero
	// beyond its support (up to n), so products can stop there.
	n1, n2 := r.level[1], r.level[2]

	// Error bounds ε_p ≥ ‖K̂_p − L^p b‖: ε_{p+1} = B ε_p + γ_{w+2}·2d_max‖K̂_p‖.
	gw := highamGamma(r.wmax + 2)
	m6 := vecDot(K3, K3)
	nK := [4]float64{math.Sqrt2, vecNorm(K1[:n1]), vecNorm(K2[:n2]), math.Sqrt(m6) * (1 + highamGamma(n+2))}
	var eK [4]float64
	for p := 1; p < 4; p++ {
		eK[p] = (r.B*eK[p-1] + gw*2*r.dmax*nK[p-1]) * roundUp
	}

	// Radau nodes: Gauss nodes of x·dμ from the moments m_p = bᵀL^p b.
	m := [7]float64{2, vecDot(K0[:n1], K1[:n1]), vecDot(K1[:n1], K1[:n1]), vecDot(K1[:n1], K2[:n1]),
		vecDot(K2[:n2], K2[:n2]), vecDot(K2[:n2], K3[:n2]), m6}
	theta, ok := radauNodes(m, r.B)
	if !ok {
		return math.Inf(1)
	}

	// Newton vectors and their error bounds (exact counterparts: w1 = (L−θ1)b,
	// Lw1 = K2 − θ1K1, w2 = (L−θ2)w1, L·Lw1 = K3 − θ1K2, Lw2, w3 = (L−θ3)w2).
	type vec struct {
		v   []float64
		sup int
		nrm float64
		err float64
	}
	mk := func(dst []float64, x vec, th float64, y vec) vec {
		l := max(x.sup, y.sup)
		vecAxpy(dst[:l], x.v[:l], th, y.v[:l])
		clear(dst[l:n])
		return vec{dst, l, vecNorm(dst[:l]), (x.err + math.Abs(th)*y.err + 2*roundoffU*(x.nrm+math.Abs(th)*y.nrm)) * roundUp}
	}
	k0 := vec{K0, 2, nK[0], 0}
	k1 := vec{K1, n1, nK[1], eK[1]}
	k2 := vec{K2, n2, nK[2], eK[2]}
	k3 := vec{K3, n, nK[3], eK[3]}
	w1 := mk(r.tmp[0], k1, theta[0], k0)
	lw1 := mk(r.tmp[1], k2, theta[0], k1)
	w2 := mk(r.tmp[2], lw1, theta[1], w1)
	llw1 := mk(r.tmp[3], k3, theta[0], k2)
	lw2 := mk(r.tmp[4], llw1, theta[1], lw1)
	w3 := mk(r.tmp[5], lw2, theta[2], w2)
	ip := func(x, y vec) (float64, float64) {
		l := min(x.sup, y.sup)
		v := vecDot(x.v[:l], y.v[:l])
		e := x.nrm*y.err + y.nrm*x.err + x.err*y.err + highamGamma(n+2)*x.nrm*y.nrm
		return v, e * roundUp
	}
	// ν_m = bᵀ ω_m(L) b, ω = 1, x, x(x−θ1), x(x−θ1)², …(x−θ2), …(x−θ2)², …(x−θ3).
	var nu, nuErr [7]float64
	nu[0] = 2
	nu[1], nuErr[1] = ip(k0, k1)
	nu[2], nuErr[2] = ip(k1, w1)
	nu[3], nuErr[3] = ip(w1, lw1)
	nu[4], nuErr[4] = ip(lw1, w2)
	nu[5], nuErr[5] = ip(w2, lw2)
	nu[6], nuErr[6] = ip(lw2, w3)

	d, ok := hermiteExpDD(r.tau, theta)
	if !ok {
		return math.Inf(1)
	}
	sum, abs := 0.0, 0.0
	for t := 0; t < 7; t++ {
		hi := imul(d[t], interval{nu[t] - nuErr[t], nu[t] + nuErr[t]}).hi
		sum += hi
		abs += math.Abs(hi)
	}
	return sum + highamGamma(8)*abs
}

// radauNodes estimates the three Gauss nodes of the measure x·dμ from the
// moments m_0..m_6 of μ (modified moments m_{p+1}): the eigenvalues of
// R⁻ᵀ H R⁻¹ with G = RᵀR, G_pq = m_{p+q+1}, H_pq = m_{p+q+2}. The nodes are
// then made distinct and positive; any such nodes give a valid bound.
func radauNodes(m [7]float64, B float64) ([3]float64, bool) {
	th, good := momentNodes(m)
	if !good {
		// Degenerate measure (b_e in a ≤ 2-dimensional invariant subspace):
		// fall back to the one-step Radau node and two spread nodes.
		s := m[2] / m[1]
		th = [3]float64{s, B / 3, 2 * B / 3}
	}
	return separateNodes(th, B)
}

// momentNodes returns the eigenvalues of R⁻ᵀ H R⁻¹ (radauNodes), or false
// when G is not positive definite or the eigensolver fails.
func momentNodes(m [7]float64) ([3]float64, bool) {
	var th [3]float64
	G := mat.NewSymDense(3, nil)
	H := mat.NewSymDense(3, nil)
	for p := 0; p < 3; p++ {
		for q := p; q < 3; q++ {
			G.SetSym(p, q, m[p+q+1])
			H.SetSym(p, q, m[p+q+2])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(G) {
		return th, false
	}
	var R mat.TriDense
	ch.UTo(&R)
	var Ri mat.TriDense
	if err := Ri.InverseTri(&R); err != nil {
		return th, false
	}
	var S mat.Dense
	S.Mul(Ri.T(), H)
	S.Mul(&S, &Ri)
	Ss := mat.NewSymDense(3, nil)
	for p := 0; p < 3; p++ {
		for q := p; q < 3; q++ {
			Ss.SetSym(p, q, (S.At(p, q)+S.At(q, p))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(Ss, false) {
		return th, false
	}
	copy(th[:], es.Values(nil))
	return th, true
}

// separateNodes clamps the nodes th into (0, B] and separates them by
// at least 10⁻⁶·B; it reports false if two still coincide.
func separateNodes(th [3]float64, B float64) ([3]float64, bool) {
	sep := 1e-6 * B
	for k := range th {
		if !(th[k] > sep) || math.IsNaN(th[k]) {
			th[k] = sep * float64(k+2)
		}
		th[k] = math.Min(th[k], B)
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < a; b++ {
			if math.Abs(th[a]-th[b]) < sep {
				th[a] += 2 * sep * float64(a+1)
			}
		}
	}
	if th[0] == th[1] || th[1] == th[2] || th[0] == th[2] {
		return th, false
	}
	return th, true
}

// interval is a closed interval [lo, hi] used to enclose exact real values;
// every operation rounds outward by one ulp (Go rounds to nearest).
type interval struct{ lo, hi float64 }

func ulpDown(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }
func ulpUp(x float64) float64   { return math.Nextafter(x, math.Inf(1)) }

func isub(a, b interval) interval { return interval{ulpDown(a.lo - b.hi), ulpUp(a.hi - b.lo)} }

func imul(a, b interval) interval {
	p := [4]float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
	lo, hi := p[0], p[0]
	for _, v := range p[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return interval{ulpDown(lo), ulpUp(hi)}
}

// idiv divides by an interval that does not contain 0.
func idiv(a, b interval) interval {
	p := [4]float64{a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi}
	lo, hi := p[0], p[0]
	for _, v := range p[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return interval{ulpDown(lo), ulpUp(hi)}
}

// iexpNeg encloses e^{−c·z} for c, z ≥ 0 given as floats (c·z rounded
// outward; math.Exp is accurate to < 1 ulp, widened by 2 ulps).
func iexpNeg(c, z float64) interval {
	arg := interval{ulpDown(c * z), ulpUp(c * z)}
	lo := math.Exp(-arg.hi)
	hi := math.Exp(-arg.lo)
	return interval{math.Max(0, ulpDown(ulpDown(lo))), ulpUp(ulpUp(hi))}
}

// hermiteExpDD encloses the Newton divided differences d_0..d_6 of
// f(x) = e^{−2τx} at the nodes (0, θ1, θ1, θ2, θ2, θ3, θ3), with
// f[θ, θ] = f'(θ) = −2τ e^{−2τθ}.
func hermiteExpDD(tau float64, th [3]float64) ([7]interval, bool) {
	z := [7]float64{0, th[0], th[0], th[1], th[1], th[2], th[2]}
	c := 2 * tau // exact
	var col [7]interval
	for k := range z {
		col[k] = iexpNeg(c, z[k])
	}
	var d [7]interval
	d[0] = col[0]
	for order := 1; order < 7; order++ {
		for k := 0; k+order < 7; k++ {
			a, b := z[k], z[k+order]
			if a == b { // only for order 1 at a repeated node
				col[k] = imul(interval{-c, -c}, iexpNeg(c, a))
				continue
			}
			den := interval{ulpDown(b - a), ulpUp(b - a)}
			if den.lo <= 0 && den.hi >= 0 {
				return d, false
			}
			col[k] = idiv(isub(col[k+1], col[k]), den)
		}
		d[order] = col[0]
	}
	for _, v := range d {
		if math.IsNaN(v.lo) || math.IsNaN(v.hi) || math.IsInf(v.lo, 0) || math.IsInf(v.hi, 0) {
			return d, false
		}
	}
	return d, true
}

// radauBounds computes radauWork.bound for every edge in parallel, in the
// given order, and lowers u[e] to it where it is smaller, until the
// deadline (zero: none).
func radauBounds(works []*radauWork, m int, edge func(k int) (i, j int, u float64), set func(k int, u float64), cut cutoff) {
	w := len(works)
	var wg sync.WaitGroup
	// Worker p takes edges p, p+w, p+2w, …: in the caller's order, so an
	// early deadline leaves the tail.
	for p := range w {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			r := works[p]
			g := r.g
			for k := p; k < m; k += w {
				if (k/w)%64 == 0 && cut.passed() {
					return
				}
				i, j, u := edge(k)
				// Through a hub the 3-hop ball is most of the graph: the
				// bound would cost as much as a column, so keep the cheap one.
				if twoHopVolume(g, i, j, radauMaxVolume) > radauMaxVolume {
					continue
				}
				if b := r.bound(i, j); b < u {
					set(k, math.Max(b, 0))
				}
			}
		}(p)
	}
	wg.Wait()
}

// radauMaxVolume caps the 2-hop edge volume of an edge whose Radau bound is
// computed (about the size of its 3-hop ball).
const radauMaxVolume = 1 << 11

// twoHopVolume returns Σ deg(v) over the neighbours v of i and j (unweighted
// degrees), stopping early once it exceeds limit.
func twoHopVolume(g *laplacian.Graph, i, j, limit int) int {
	vol := 0
	for _, x := range [2]int{i, j} {
		cols, _ := g.Neighbors(x)
		for _, v := range cols {
			c, _ := g.Neighbors(int(v))
			vol += len(c)
			if vol > limit {
				return vol
			}
		}
	}
	return vol
}
