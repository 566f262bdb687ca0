package privacy

import (
	"math/big"
	"math/bits"
)

// SamplerVersion identifies the exact bit-for-bit behaviour of the discrete
// Gaussian sampler below together with the key derivation in keys.go. Any
// change to either that changes a single output must bump it; the golden
// vectors in testdata/ freeze each version. Version 2 added the release id
// to the key derivation; Unmask still regenerates version 1.
const SamplerVersion = 2

// maxSigma2 bounds the integer variance σ̃² of the sampler (2^50, that is
// σ̃ ≤ 2^25 grid steps) so that the fast path's products fit in 128 bits
// except in tails of probability far below 2^-1000, which fall back to
// math/big with the identical algorithm.
const maxSigma2 = 1 << 50

// bitSource yields uniformly random 64-bit words. Keyed noise reads a
// ChaCha20 keystream as little-endian uint64; default noise reads
// crypto/rand. The sampler consumes randomness only through uniform below.
type bitSource interface {
	Uint64() uint64
}

// The discrete Gaussian sampler of Canonne, Kamath & Steinke (2020, "The
// Discrete Gaussian for Differential Privacy", Algorithms 1–3,
// arXiv:2004.00010), in exact integer arithmetic. Version 1 is specified as
// follows (every implementation must consume the same words in the same
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
// Run time depends on the output (Jin et al. 2022); Release draws all noise
// of an epoch before it combines any with the true values.

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

func (a u128) sub(b u128) u128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, borrow)
	return u128{hi, lo}
}

// mul64 returns a·k and whether it overflowed 128 bits.
func (a u128) mul64(k uint64) (u128, bool) {
	h1, l := bits.Mul64(a.lo, k)
	h2, l2 := bits.Mul64(a.hi, k)
	hi, carry := bits.Add64(h1, l2, 0)
	return u128{hi, l}, h2 != 0 || carry != 0
}

func (a u128) big() *big.Int {
	x := new(big.Int).SetUint64(a.hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(a.lo))
}

func lowMask(b uint) uint64 {
	if b >= 64 {
		return ^uint64(0)
	}
	return 1<<b - 1
}

// uniform128 returns a uniform integer in [0, m), m ≥ 1, per the spec.
func uniform128(src bitSource, m u128) u128 {
	v := m.sub(u128{0, 1})
	if v.hi == 0 {
		if v.lo == 0 {
			return u128{}
		}
		mask := lowMask(uint(bits.Len64(v.lo)))
		for {
			if w := src.Uint64() & mask; w <= v.lo {
				return u128{0, w}
			}
		}
	}
	mask := lowMask(uint(bits.Len64(v.hi)))
	for {
		h := src.Uint64() & mask
		l := src.Uint64()
		if !(v.less(u128{h, l})) {
			return u128{h, l}
		}
	}
}

// uniform64 is uniform128 for m < 2^64.
func uniform64(src bitSource, m uint64) uint64 {
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
func bernExpFrac64(src bitSource, n, d uint64) bool {
	k := uint64(1)
	for {
		hi, m := bits.Mul64(k, d)
		var hit bool
		if hi == 0 {
			hit = uniform64(src, m) < n
		} else {
			hit = uniform128(src, u128{hi, m}).less(u128{0, n})
		}
		if !hit {
			return k&1 == 1
		}
		k++
	}
}

// bernExpFrac128 returns Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d < 2^128.
func bernExpFrac128(src bitSource, n, d u128) bool {
	k := uint64(1)
	for {
		m, over := d.mul64(k)
		var hit bool
		if over {
			hit = uniformBig(src, new(big.Int).Mul(d.big(), new(big.Int).SetUint64(k))).Cmp(n.big()) < 0
		} else {
			hit = uniform128(src, m).less(n)
		}
		if !hit {
			return k&1 == 1
		}
		k++
	}
}

// bernExp128 returns Bernoulli(exp(−n/d)) for n ≥ 0, d ≥ 1.
func bernExp128(src bitSource, n, d u128) bool {
	for !n.less(d) {
		if !bernExpFrac64(src, 1, 1) {
			return false
		}
		n = n.sub(d)
	}
	return bernExpFrac128(src, n, d)
}

// dlap64 samples the discrete Laplace distribution with scale t ≥ 1.
func dlap64(src bitSource, t uint64) int64 {
	for {
		u := uniform64(src, t)
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
			panic("privacy: discrete Laplace sample out of range")
		}
		b := uniform64(src, 2) < 1
		if b && x == 0 {
			continue
		}
		if b {
			return -int64(x)
		}
		return int64(x)
	}
}

// dgauss holds the sampler's precomputed constants for one σ̃² = s2.
type dgauss struct {
	s2, t uint64
	den   u128 // 2·s2·t²
}

// newDGauss prepares the sampler for the integer variance s2 in [1, 2^50].
// It panics outside that range (Release validates first).
func newDGauss(s2 uint64) dgauss {
	if s2 < 1 || s2 > maxSigma2 {
		panic("privacy: discrete Gaussian variance out of range")
	}
	t := isqrt(s2) + 1
	tt := u128{0, t * t} // t ≤ 2^25 + 1, t² < 2^51
	den, _ := tt.mul64(2 * s2)
	return dgauss{s2: s2, t: t, den: den}
}

// sample draws one value of the discrete Gaussian N_ℤ(0, s2).
func (g dgauss) sample(src bitSource) int64 {
	for {
		y := dlap64(src, g.t)
		ay := uint64(y)
		if y < 0 {
			ay = uint64(-y)
		}
		hi, yt := bits.Mul64(ay, g.t)
		if hi != 0 || yt >= 1<<63 {
			if bernExpBig(src, g.numBig(ay), g.den.big()) {
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
		if bernExp128(src, u128{nh, nl}, g.den) {
			return y
		}
	}
}

func (g dgauss) numBig(ay uint64) *big.Int {
	c := new(big.Int).SetUint64(ay)
	c.Mul(c, new(big.Int).SetUint64(g.t))
	c.Sub(c, new(big.Int).SetUint64(g.s2))
	return c.Mul(c, c)
}

// isqrt returns ⌊√x⌋ exactly.
func isqrt(x uint64) uint64 {
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

// uniformBig returns a uniform integer in [0, m), m ≥ 1, per the spec.
func uniformBig(src bitSource, m *big.Int) *big.Int {
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

func bernExpFracBig(src bitSource, n, d *big.Int) bool {
	k := int64(1)
	m := new(big.Int)
	for {
		m.Mul(d, big.NewInt(k))
		if uniformBig(src, m).Cmp(n) >= 0 {
			return k&1 == 1
		}
		k++
	}
}

func bernExpBig(src bitSource, n, d *big.Int) bool {
	n = new(big.Int).Set(n)
	for n.Cmp(d) >= 0 {
		if !bernExpFracBig(src, bigOne, bigOne) {
			return false
		}
		n.Sub(n, d)
	}
	return bernExpFracBig(src, n, d)
}

func dlapBig(src bitSource, t *big.Int) *big.Int {
	for {
		u := uniformBig(src, t)
		if !bernExpFracBig(src, u, t) {
			continue
		}
		v := new(big.Int)
		for bernExpFracBig(src, bigOne, bigOne) {
			v.Add(v, bigOne)
		}
		x := new(big.Int).Mul(t, v)
		x.Add(x, u)
		b := uniformBig(src, big.NewInt(2)).Sign() == 0
		if b && x.Sign() == 0 {
			continue
		}
		if b {
			x.Neg(x)
		}
		return x
	}
}

// dgaussBig is the reference implementation of dgauss.sample for any
// integer variance s2 ≥ 1.
func dgaussBig(src bitSource, s2 *big.Int) *big.Int {
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
		if bernExpBig(src, c, den) {
			return y
		}
	}
}
