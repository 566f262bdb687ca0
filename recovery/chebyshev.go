package recovery

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/laplacian"
)

// heatAction applies exp(−τL) to blocks of vectors with a Chebyshev
// expansion on the spectral interval [0, λmax], λmax = 2·max weighted
// degree (Gershgorin). With t = 2λ/λmax − 1 and a = τλmax/2,
//
//	exp(−τλ) = e^{−a}·e^{−a t} = e^{−a}I₀(a) + 2 Σ_{k≥1} (−1)^k e^{−a}I_k(a) T_k(t)
//
// (the Jacobi–Anger expansion; Abramowitz & Stegun 9.6.34), truncated at
// the first degree K whose tail 2·Σ_{k>K} e^{−a}I_k(a) is below tol. That
// tail bounds |exp(−τλ) − p_K(λ)| on [0, λmax], hence the spectral-norm
// error of the action. This is a private stand-in for expm's Chebyshev
// action; it only ever feeds estimates, never privacy numbers.
type heatAction struct {
	op    *laplacian.Operator
	n     int
	lmax  float64
	coef  []float64 // c_k including the 2·(−1)^k factor
	bound float64   // truncation error bound
}

func newHeatAction(op *laplacian.Operator, tau, tol float64) (*heatAction, error) {
	g := op.Graph()
	lmax := 2 * g.MaxDegree()
	h := &heatAction{op: op, n: g.N(), lmax: lmax}
	if lmax == 0 { // no edges: exp(−τL) = I
		h.coef = []float64{1}
		return h, nil
	}
	a := tau * lmax / 2
	ie := scaledBesselI(a, tol)
	if ie == nil {
		return nil, fmt.Errorf("recovery: chebyshev expansion for a = τλmax/2 = %g too long", a)
	}
	// Choose K.
	tail := 0.0
	K := len(ie) - 1
	for k := len(ie) - 1; k >= 1; k-- {
		if tail+2*ie[k] > tol {
			K = k
			break
		}
		tail += 2 * ie[k]
	}
	h.bound = tail
	h.coef = make([]float64, K+1)
	h.coef[0] = ie[0]
	for k := 1; k <= K; k++ {
		c := 2 * ie[k]
		if k%2 == 1 {
			c = -c
		}
		h.coef[k] = c
	}
	return h, nil
}

// scaledBesselI returns e^{−a}I_k(a) for k = 0..N with N large enough that
// the remaining tail is far below tol, by Miller's backward recurrence
// I_{k−1} = (2k/a)I_k + I_{k+1}, normalised with I₀ + 2ΣI_k = e^{a}.
func scaledBesselI(a, tol float64) []float64 {
	if a == 0 {
		return []float64{1}
	}
	// Terms decay roughly like exp(−k²/2a) beyond k ≈ a; start well past
	// the point where they fall below tol·1e-6.
	N := int(a + 10*math.Sqrt(a)*math.Sqrt(math.Max(1, -math.Log10(tol)))/2 + 40)
	if N > 1<<22 {
		return nil
	}
	start := N + 30
	vals := make([]float64, start+2)
	vals[start+1] = 0
	vals[start] = 1e-300
	for k := start; k >= 1; k-- {
		vals[k-1] = 2*float64(k)/a*vals[k] + vals[k+1]
		if vals[k-1] > 1e250 { // rescale to avoid overflow
			for j := k - 1; j <= start; j++ {
				vals[j] *= 1e-250
			}
		}
	}
	sum := vals[0]
	for k := 1; k <= start; k++ {
		sum += 2 * vals[k]
	}
	out := make([]float64, N+1)
	for k := 0; k <= N; k++ {
		out[k] = vals[k] / sum
	}
	return out
}

// apply sets dst = p_K(L)·x for a row-major n×b block.
func (h *heatAction) apply(dst, x []float64, b int) {
	n := h.n
	if len(dst) != n*b || len(x) != n*b {
		panic("recovery: heat action length mismatch")
	}
	if len(h.coef) == 1 {
		for i := range dst {
			dst[i] = h.coef[0] * x[i]
		}
		return
	}
	t0 := append([]float64(nil), x...)
	t1 := make([]float64, n*b)
	// T₁ = (2/λmax)L x − x.
	h.op.MulBlockAffine(t1, x, b, 2/h.lmax, -1, nil, 0)
	acc := make([]float64, n*b)
	for i := range acc {
		acc[i] = h.coef[0]*t0[i] + h.coef[1]*t1[i]
	}
	for k := 2; k < len(h.coef); k++ {
		// T_{k+1} = (4/λmax)L T_k − 2T_k − T_{k−1}, written over t0.
		h.op.MulBlockAffine(t0, t1, b, 4/h.lmax, -2, t0, -1)
		t0, t1 = t1, t0
		c := h.coef[k]
		for i := range acc {
			acc[i] += c * t1[i]
		}
	}
	copy(dst, acc)
}
