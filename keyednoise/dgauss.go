package keyednoise

import (
	"math/big"
	"math/bits"
)

// MaxGridVariance bounds the integer variance σ̃² of the sampler (2^50,
// that is σ̃ ≤ 2^25 grid steps) so that the fast path's products fit in
// 128 bits except in tails of probability far below 2^-1000, which fall
// back to math/big with the identical algorithm.
const MaxGridVariance = 1 << 50

// Source yields uniformly random 64-bit words. Keyed noise reads a
// ChaCha20 keystream as little-endian uint64 (Stream); unkeyed noise reads
// crypto/rand. The sampler consumes randomness only through Uniform64,
// Uniform128 and UniformBig.
type Source interface {
	Uint64() uint64
}

// The discrete Gaussian sampler of Canonne, Kamath & Steinke (2020, "The
// Discrete Gaussian for Differential Privacy", Algorithms 1–3,
// arXiv:2004.00010), in exact integer arithmetic. It is the same in every
// sampler version (1, 2, 3 differ in key derivation only) and is specified
// as follows (every implementation must consume the same words in the same
// order):
//
//	uniform(m), m ≥ 1:  v = m − 1; if v = 0 return 0 (no word drawn).
//	    b = bitlen(v), w = ⌈b/64⌉. Repeat: draw w words, most significant
//	    first, mask the first to its low b − 64(w−1) bits; return the
//	    number if ≤ v.
//	bern(n/d), 0 ≤ n ≤ d:  uniform(d) < n.
//	bernExpFrac(n/d), 0 ≤ n ≤ d (Bernoulli(e^{−n/d}), CKS Alg. 1):
//	    K = 1; while bern(n/(K·d)): K++; return K odd.
//	bernExp(n/d), n ≥ 0 (CKS Alg. 1 for λ > 1):
//	    while n ≥ d: if not bernExpFrac(1/1) return false; n −= d.
//	    return bernExpFrac(n/d).
//	dlap(t), t ≥ 1 (discrete Laplace ∝ e^{−|x|/t}, CKS Alg. 2):
//	    repeat: U = uniform(t); if not bernExpFrac(U/t) continue;
//	    V = 0; while bernExpFrac(1/1): V++;
//	    X = U + t·V; B = bern(1/2); if B and X = 0 continue;
//	    return (1 − 2B)·X.
//	dgauss(s2), s2 = σ̃² ≥ 1 an integer (CKS Alg. 3):
//	    t = ⌊√s2⌋ + 1; repeat: Y = dlap(t);
//	    if bernExp((|Y|·t − s2)² / (2·s2·t²)) return Y.
//
// The last test is Bernoulli(exp(−(|Y| − σ̃²/t)²/(2σ̃²))) with both sides
// multiplied by t². The output Y has P(Y = y) ∝ exp(−y²/(2σ̃²)) on ℤ
// exactly (CKS20 Thm. 6 and §5.3), with no floating-point arithmetic.
//
// Run time depends on the output (Jin et al. 2022): callers draw the noise
// before they combine it with a true value. docs/local-sampler.md states
// the same algorithm language-neutrally, with test vectors.
//
// The primitives are exported (Uniform64, Uniform128, UniformBig,
// BernExp128, BernExpBig, DiscreteGaussianBig) so that tests and other
// implementations can check the specification step by step; the fast path
// (uint64/U128) and the math/big reference consume the same words.

// U128 is an unsigned 128-bit integer.
type U128 struct{ Hi, Lo uint64 }

func (a U128) less(b U128) bool { return a.Hi < b.Hi || (a.Hi == b.Hi && a.Lo < b.Lo) }

func (a U128) sub(b U128) U128 {
	lo, borrow := bits.Sub64(a.Lo, b.Lo, 0)
	hi, _ := bits.Sub64(a.Hi, b.Hi, borrow)
	return U128{hi, lo}
}

// mul64 returns a·k and whether it overflowed 128 bits.
func (a U128) mul64(k uint64) (U128, bool) {
	h1, l := bits.Mul64(a.Lo, k)
	h2, l2 := bits.Mul64(a.Hi, k)
	hi, carry := bits.Add64(h1, l2, 0)
	return U128{hi, l}, h2 != 0 || carry != 0
}

func (a U128) big() *big.Int {
	x := new(big.Int).SetUint64(a.Hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(a.Lo))
}

func lowMask(b uint) uint64 {
	if b >= 64 {
		return ^uint64(0)
	}
	return 1<<b - 1
}

// Uniform128 returns a uniform integer in [0, m), m ≥ 1, per the spec.
func Uniform128(src Source, m U128) U128 {
	v := m.sub(U128{0, 1})
	if v.Hi == 0 {
		if v.Lo == 0 {
			return U128{}
		}
		mask := lowMask(uint(bits.Len64(v.Lo)))
		for {
			if w := src.Uint64() & mask; w <= v.Lo {
				return U128{0, w}
			}
		}
	}
	mask := lowMask(uint(bits.Len64(v.Hi)))
	for {
		h := src.Uint64() & mask
		l := src.Uint64()
		if !(v.less(U128{h, l})) {
			return U128{h, l}
		}
	}
}

// Uniform64 is Uniform128 for m < 2^64.
func Uniform64(src Source, m uint64) uint64 {
	v := m - 1
	if v == 0 {
		return 0
	}
	mask := lowMask(uint(bits.Len64(v)))
	for {
		if w := src.Uint64() & mask; w <= v {
			return w
		}
	}
}

// bernExpFrac64 returns Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d < 2^64.
func bernExpFrac64(src Source, n, d uint64) bool {
	k := uint64(1)
	for {
		hi, m := bits.Mul64(k, d)
		var hit bool
		if hi == 0 {
			hit = Uniform64(src, m) < n
		} else {
			hit = Uniform128(src, U128{hi, m}).less(U128{0, n})
		}
		if !hit {
			return k&1 == 1
		}
		k++
	}
}

// bernExpFrac128 returns Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d < 2^128.
func bernExpFrac128(src Source, n, d U128) bool {
	k := uint64(1)
	for {
		m, over := d.mul64(k)
		var hit bool
		if over {
			hit = UniformBig(src, new(big.Int).Mul(d.big(), new(big.Int).SetUint64(k))).Cmp(n.big()) < 0
		} else {
			hit = Uniform128(src, m).less(n)
		}
		if !hit {
			return k&1 == 1
		}
		k++
	}
}

// BernExp128 returns Bernoulli(exp(−n/d)) for n ≥ 0, d ≥ 1.
func BernExp128(src Source, n, d U128) bool {
	for !n.less(d) {
		if !bernExpFrac64(src, 1, 1) {
			return false
		}
		n = n.sub(d)
	}
	return bernExpFrac128(src, n, d)
}

// dlap64 samples the discrete Laplace distribution with scale t ≥ 1.
func dlap64(src Source, t uint64) int64 {
	for {
		u := Uniform64(src, t)
		if !bernExpFrac64(src, u, t) {
			continue
		}
		var v uint64
		for bernExpFrac64(src, 1, 1) {
			v++
		}
		hi, tv := bits.Mul64(t, v)
		x, carry := bits.Add64(u, tv, 0)
		if hi != 0 || carry != 0 || x > 1<<62 {
			// Probability below exp(−2^37): the output cannot be
			// represented; this is unreachable in practice.
			panic("keyednoise: discrete Laplace sample out of range")
		}
		b := Uniform64(src, 2) < 1
		if b && x == 0 {
			continue
		}
		if b {
			return -int64(x)
		}
		return int64(x)
	}
}

// Gaussian is the discrete Gaussian sampler N_ℤ(0, σ̃²) for one integer
// variance σ̃², with its constants precomputed.
type Gaussian struct {
	s2, t uint64
	den   U128 // 2·s2·t²
}

// NewGaussian prepares the sampler for the integer variance s2 in
// [1, MaxGridVariance]. It panics outside that range (callers validate
// first; CheckGridVariance).
func NewGaussian(s2 uint64) Gaussian {
	if s2 < 1 || s2 > MaxGridVariance {
		panic("keyednoise: discrete Gaussian variance out of range")
	}
	t := Isqrt(s2) + 1
	tt := U128{0, t * t} // t ≤ 2^25 + 1, t² < 2^51
	den, _ := tt.mul64(2 * s2)
	return Gaussian{s2: s2, t: t, den: den}
}

// Sample draws one value of the discrete Gaussian N_ℤ(0, σ̃²) from src.
func (g Gaussian) Sample(src Source) int64 {
	for {
		y := dlap64(src, g.t)
		ay := uint64(y)
		if y < 0 {
			ay = uint64(-y)
		}
		hi, yt := bits.Mul64(ay, g.t)
		if hi != 0 || yt >= 1<<63 {
			if BernExpBig(src, g.numBig(ay), g.den.big()) {
				return y
			}
			continue
		}
		var c uint64
		if yt >= g.s2 {
			c = yt - g.s2
		} else {
			c = g.s2 - yt
		}
		nh, nl := bits.Mul64(c, c)
		if BernExp128(src, U128{nh, nl}, g.den) {
			return y
		}
	}
}

func (g Gaussian) numBig(ay uint64) *big.Int {
	c := new(big.Int).SetUint64(ay)
	c.Mul(c, new(big.Int).SetUint64(g.t))
	c.Sub(c, new(big.Int).SetUint64(g.s2))
	return c.Mul(c, c)
}

// Isqrt returns ⌊√x⌋ exactly.
func Isqrt(x uint64) uint64 {
	r := uint64(0)
	for b := uint64(1) << 62; b != 0; b >>= 2 {
		if x >= r+b {
			x -= r + b
			r = r>>1 + b
		} else {
			r >>= 1
		}
	}
	return r
}

// ---- math/big reference, used by the fast path's overflow branches and,
// in tests, as an independent implementation of the same specification.

var bigOne = big.NewInt(1)

// UniformBig returns a uniform integer in [0, m), m ≥ 1, per the spec.
func UniformBig(src Source, m *big.Int) *big.Int {
	v := new(big.Int).Sub(m, bigOne)
	if v.Sign() == 0 {
		return v
	}
	b := v.BitLen()
	w := (b + 63) / 64
	top := uint(b - 64*(w-1))
	x := new(big.Int)
	word := new(big.Int)
	for {
		x.SetUint64(src.Uint64() & lowMask(top))
		for i := 1; i < w; i++ {
			x.Lsh(x, 64)
			x.Or(x, word.SetUint64(src.Uint64()))
		}
		if x.Cmp(v) <= 0 {
			return x
		}
	}
}

func bernExpFracBig(src Source, n, d *big.Int) bool {
	k := int64(1)
	m := new(big.Int)
	for {
		m.Mul(d, big.NewInt(k))
		if UniformBig(src, m).Cmp(n) >= 0 {
			return k&1 == 1
		}
		k++
	}
}

// BernExpBig returns Bernoulli(exp(−n/d)) for n ≥ 0, d ≥ 1 (reference).
func BernExpBig(src Source, n, d *big.Int) bool {
	n = new(big.Int).Set(n)
	for n.Cmp(d) >= 0 {
		if !bernExpFracBig(src, bigOne, bigOne) {
			return false
		}
		n.Sub(n, d)
	}
	return bernExpFracBig(src, n, d)
}

func dlapBig(src Source, t *big.Int) *big.Int {
	for {
		u := UniformBig(src, t)
		if !bernExpFracBig(src, u, t) {
			continue
		}
		v := new(big.Int)
		for bernExpFracBig(src, bigOne, bigOne) {
			v.Add(v, bigOne)
		}
		x := new(big.Int).Mul(t, v)
		x.Add(x, u)
		b := UniformBig(src, big.NewInt(2)).Sign() == 0
		if b && x.Sign() == 0 {
			continue
		}
		if b {
			x.Neg(x)
		}
		return x
	}
}

// DiscreteGaussianBig is the reference implementation of Gaussian.Sample for any
// integer variance s2 ≥ 1.
func DiscreteGaussianBig(src Source, s2 *big.Int) *big.Int {
	t := new(big.Int).Sqrt(s2)
	t.Add(t, bigOne)
	den := new(big.Int).Mul(t, t)
	den.Mul(den, s2)
	den.Lsh(den, 1)
	for {
		y := dlapBig(src, t)
		c := new(big.Int).Abs(y)
		c.Mul(c, t)
		c.Sub(c, s2)
		c.Mul(c, c)
		if BernExpBig(src, c, den) {
			return y
		}
	}
}
