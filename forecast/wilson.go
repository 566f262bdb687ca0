package forecast

import "math"

// Wilson returns the Wilson score interval for a proportion with k
// successes in n trials at the normal quantile z (1.959964 for 95%):
//
//	(p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  p̂ = k/n.
//
// Wilson (1927), J. Am. Stat. Assoc. 22:209. Unlike p̂ ± z√(p̂(1−p̂)/n) it
// stays inside [0, 1] and is not empty at p̂ = 0 or 1.
func Wilson(k, n, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := k / n
	z2 := z * z
	den := 1 + z2/n
	centre := (p + z2/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / den
	lo, hi = math.Max(0, centre-half), math.Min(1, centre+half)
	// At p̂ = 0 or 1 one root is exactly 0 or 1; keep it exact.
	if k <= 0 {
		lo = 0
	}
	if k >= n {
		hi = 1
	}
	return lo, hi
}

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959963984540054
