package privacy

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// scripted yields fixed words and counts what was consumed.
type scripted struct {
	words []uint64
	used  int
}

func (s *scripted) Uint64() uint64 {
	w := s.words[s.used]
	s.used++
	return w
}

// counting wraps a source and counts words.
type counting struct {
	src  bitSource
	used int
}

func (c *counting) Uint64() uint64 { c.used++; return c.src.Uint64() }

// testStream returns a deterministic ChaCha20 source for tests.
func testStream(label string) *chachaSource {
	var k Key
	copy(k[:], "graphcloak test key, not secret")
	d, err := newDeriver(&k, noiseParams{scope: "test", epoch: label, s2: 1, k: 0})
	if err != nil {
		panic(err)
	}
	var s chachaSource
	s.reset(append([]byte(nil), d.derive(label, 0)...))
	return &s
}

// The uniform primitive follows the written specification word by word.
func TestUniformSpec(t *testing.T) {
	s := &scripted{words: []uint64{99}}
	if got := uniform64(s, 1); got != 0 || s.used != 0 {
		t.Errorf("uniform(1) = %d using %d words, want 0 using none", got, s.used)
	}
	// m = 6: 3-bit mask, reject 7 and 6, accept 13&7 = 5.
	s = &scripted{words: []uint64{7, 6, 13}}
	if got := uniform64(s, 6); got != 5 || s.used != 3 {
		t.Errorf("uniform(6) = %d using %d words, want 5 using 3", got, s.used)
	}
	// m = 2^64 + 1: v = 2^64, 65 bits: high word masked to 1 bit.
	words := []uint64{3, 1, 0, 42}
	s = &scripted{words: words}
	if got := uniform128(s, u128{1, 1}); got != (u128{0, 42}) || s.used != 4 {
		t.Errorf("uniform(2^64+1) = %v using %d words", got, s.used)
	}
	s = &scripted{words: words}
	m := new(big.Int).Lsh(big.NewInt(1), 64)
	m.Add(m, big.NewInt(1))
	if got := uniformBig(s, m); got.Cmp(big.NewInt(42)) != 0 || s.used != 4 {
		t.Errorf("uniformBig(2^64+1) = %v using %d words", got, s.used)
	}
	s = &scripted{words: []uint64{^uint64(0), 5}}
	if got := uniformBig(s, big.NewInt(6)); got.Int64() != 5 || s.used != 2 {
		t.Errorf("uniformBig(6) = %v using %d words", got, s.used)
	}
}

func TestIsqrt(t *testing.T) {
	for _, x := range []uint64{0, 1, 2, 3, 4, 15, 16, 17, 1<<50 - 1, 1 << 50, 1<<62 + 12345, math.MaxUint64} {
		r := isqrt(x)
		lo := new(big.Int).SetUint64(r)
		hi := new(big.Int).Add(lo, bigOne)
		X := new(big.Int).SetUint64(x)
		if new(big.Int).Mul(lo, lo).Cmp(X) > 0 || new(big.Int).Mul(hi, hi).Cmp(X) <= 0 {
			t.Errorf("isqrt(%d) = %d", x, r)
		}
	}
}

// chiSquareCritical is the 1 − α quantile of χ²(df).
func chiSquareCritical(df int, alpha float64) float64 {
	return distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
}

func TestUniformDistribution(t *testing.T) {
	const n, m = 70000, 7
	src := testStream("uniform")
	var counts [m]float64
	for i := 0; i < n; i++ {
		counts[uniform64(src, m)]++
	}
	var chi float64
	for _, c := range counts {
		chi += (c - n/m) * (c - n/m) / (n / m)
	}
	if crit := chiSquareCritical(m-1, 1e-3); chi > crit {
		t.Errorf("uniform(7): χ² = %.2f > %.2f (α = 0.001)", chi, crit)
	}
}

// Bernoulli(exp(−λ)) frequencies, including λ > 1 and λ = 0.
func TestBernExp(t *testing.T) {
	const n = 40000
	src := testStream("bernexp")
	for _, c := range []struct{ num, den uint64 }{{0, 5}, {3, 10}, {1, 1}, {17, 10}, {3, 1}, {7, 3}} {
		p := math.Exp(-float64(c.num) / float64(c.den))
		hits := 0
		for i := 0; i < n; i++ {
			if bernExp128(src, u128{0, c.num}, u128{0, c.den}) {
				hits++
			}
		}
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(hits)-n*p) > 5*sd+1e-9 {
			t.Errorf("Bern(exp(−%d/%d)): %d hits, want %.0f ± %.0f", c.num, c.den, hits, n*p, 5*sd)
		}
	}
}

// The uint64/u128 fast path and the math/big reference implement the same
// specification: from the same stream they consume the same words and
// return the same values.
func TestFastPathMatchesReference(t *testing.T) {
	for _, s2 := range []uint64{1, 2, 3, 10, 1000, 1<<20 + 7, 123456789012, 1 << 50} {
		g := newDGauss(s2)
		a := &counting{src: testStream(fmt.Sprint("ref", s2))}
		b := &counting{src: testStream(fmt.Sprint("ref", s2))}
		n := 3000
		if testing.Short() {
			n = 300
		}
		for i := 0; i < n; i++ {
			x := g.sample(a)
			y := dgaussBig(b, new(big.Int).SetUint64(s2))
			if !y.IsInt64() || x != y.Int64() || a.used != b.used {
				t.Fatalf("s2=%d sample %d: fast %d (%d words), reference %v (%d words)", s2, i, x, a.used, y, b.used)
			}
		}
	}
	// The overflow branches of the fast path agree with the reference.
	for _, c := range []struct{ n, d u128 }{{u128{1 << 40, 5}, u128{1 << 39, 0}}, {u128{3, 0}, u128{1, 1}}} {
		a := &counting{src: testStream("ovf")}
		b := &counting{src: testStream("ovf")}
		for i := 0; i < 200; i++ {
			if bernExp128(a, c.n, c.d) != bernExpBig(b, c.n.big(), c.d.big()) || a.used != b.used {
				t.Fatalf("bernExp128 disagrees with reference at %d", i)
			}
		}
	}
}

// dgaussPMF returns the exact pmf of N_ℤ(0, s2) on [−L, L] (normalised
// over a range wide enough that the remainder is below 1e-30).
func dgaussPMF(s2 float64) (pmf []float64, L int) {
	sigma := math.Sqrt(s2)
	L = int(math.Ceil(13*sigma)) + 2
	pmf = make([]float64, 2*L+1)
	var z float64
	for y := -L; y <= L; y++ {
		p := math.Exp(-float64(y) * float64(y) / (2 * s2))
		pmf[y+L] = p
		z += p
	}
	for i := range pmf {
		pmf[i] /= z
	}
	return pmf, L
}

// Distribution of the keyed sampler against the exact discrete Gaussian
// pmf, for several σ̃: mean, variance (exact moments of the pmf), a
// χ² goodness-of-fit test at significance α = 0.001 over ~40
// equiprobable bins, and the tail mass beyond 3σ̃ and 5σ̃. Keys are fixed,
// so the test is deterministic.
func TestDiscreteGaussianDistribution(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 20000
	}
	var k Key
	copy(k[:], "distribution test key")
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("node-%d", i)
	}
	for _, s2 := range []uint64{1, 2, 9, 100, 10007, 1000000} {
		t.Run(fmt.Sprint("s2=", s2), func(t *testing.T) {
			z, err := keyedNoise(&k, noiseParams{scope: "dist", epoch: "e1", s2: s2, k: 0}, keys)
			if err != nil {
				t.Fatal(err)
			}
			pmf, L := dgaussPMF(float64(s2))
			var v2, v4 float64
			for i, p := range pmf {
				y := float64(i - L)
				v2 += p * y * y
				v4 += p * y * y * y * y
			}
			var mean, m2 float64
			for _, x := range z {
				mean += float64(x)
			}
			mean /= float64(n)
			for _, x := range z {
				m2 += float64(x) * float64(x)
			}
			m2 /= float64(n)
			if tol := 5 * math.Sqrt(v2/float64(n)); math.Abs(mean) > tol {
				t.Errorf("mean %g, |mean| > %g", mean, tol)
			}
			if tol := 5 * math.Sqrt((v4-v2*v2)/float64(n)); math.Abs(m2-v2) > tol {
				t.Errorf("second moment %g, want %g ± %g", m2, v2, tol)
			}
			// Bins of expected count ≥ n/40 from the exact pmf; the tail
			// remainder joins the last bin.
			const bins = 40
			target := float64(n) / bins
			var edges []int // bin b holds y ≤ edges[b]
			acc := 0.0
			for i, p := range pmf {
				acc += p * float64(n)
				if acc >= target {
					edges = append(edges, i-L)
					acc = 0
				}
			}
			if acc < target && len(edges) > 1 {
				edges = edges[:len(edges)-1]
			}
			bin := func(y int) int {
				for b, e := range edges {
					if y <= e {
						return b
					}
				}
				return len(edges)
			}
			expect := make([]float64, len(edges)+1)
			count := make([]float64, len(edges)+1)
			for i, p := range pmf {
				expect[bin(i-L)] += p * float64(n)
			}
			if expect[len(edges)] < 5 { // nothing past the last edge
				expect[len(edges)-1] += expect[len(edges)]
				expect = expect[:len(edges)]
				count = count[:len(edges)]
				edges[len(edges)-1] = L + 1<<40
			}
			for _, x := range z {
				count[bin(int(x))]++
			}
			var chi float64
			df := -1
			for b := range expect {
				if expect[b] < 5 {
					t.Fatalf("bin %d expects %.2f < 5", b, expect[b])
				}
				chi += (count[b] - expect[b]) * (count[b] - expect[b]) / expect[b]
				df++
			}
			if crit := chiSquareCritical(df, 1e-3); chi > crit {
				t.Errorf("χ² = %.2f > %.2f (df %d, α = 0.001)", chi, crit, df)
			}
			// Tails.
			sigma := math.Sqrt(float64(s2))
			for _, c := range []float64{3, 5} {
				var p float64
				for i, q := range pmf {
					if math.Abs(float64(i-L)) > c*sigma {
						p += q
					}
				}
				var hits float64
				for _, x := range z {
					if math.Abs(float64(x)) > c*sigma {
						hits++
					}
				}
				if sd := math.Sqrt(float64(n) * p * (1 - p)); math.Abs(hits-float64(n)*p) > 5*sd+3 {
					t.Errorf("P(|Z| > %gσ): %v hits, want %.1f ± %.1f", c, hits, float64(n)*p, 5*sd+3)
				}
			}
		})
	}
}

// At σ̃ = 2^20 (s2 = 2^40) the pmf has 2.7e7 support points; the bin
// masses are computed with the continuous CDF at half-integers, which is
// exact to far below 1e-12 there (Euler–Maclaurin: the correction is
// O(φ'(x)/σ̃²) ≈ 1e-13, Poisson summation: O(exp(−2π²σ̃²))).
func TestDiscreteGaussianLargeSigma(t *testing.T) {
	const s2 = 1 << 40
	n := 50000
	if testing.Short() {
		n = 10000
	}
	var k Key
	copy(k[:], "large sigma key")
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	z, err := keyedNoise(&k, noiseParams{scope: "big", epoch: "e", s2: s2, k: 20}, keys)
	if err != nil {
		t.Fatal(err)
	}
	sigma := math.Sqrt(s2)
	const bins = 40
	count := make([]float64, bins)
	std := distuv.UnitNormal
	edges := make([]float64, bins-1) // integer bin ends
	for b := range edges {
		edges[b] = math.Floor(sigma * std.Quantile(float64(b+1)/bins))
	}
	for _, x := range z {
		b := 0
		for b < len(edges) && float64(x) > edges[b] {
			b++
		}
		count[b]++
	}
	var chi float64
	prev := 0.0
	for b := 0; b < bins; b++ {
		cdf := 1.0
		if b < len(edges) {
			cdf = std.CDF((edges[b] + 0.5) / sigma)
		}
		e := (cdf - prev) * float64(n)
		prev = cdf
		chi += (count[b] - e) * (count[b] - e) / e
	}
	if crit := chiSquareCritical(bins-1, 1e-3); chi > crit {
		t.Errorf("σ̃ = 2^20: χ² = %.2f > %.2f (α = 0.001)", chi, crit)
	}
}
