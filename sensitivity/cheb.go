package sensitivity

import "github.com/graphcloak/graphcloak/expm"

// chebDegree returns the smallest K ≥ 1 with expm.ChebyshevTail(a, K) ≤ tol:
// the degree of the Chebyshev expansion of e^{−a(1+y)} on [−1, 1] whose
// truncation error is proven below tol.
func chebDegree(a, tol float64) int {
	if a == 0 {
		return 1
	}
	lo, hi := 1, 8
	for expm.ChebyshevTail(a, hi) > tol {
		lo = hi
		hi *= 2
		if hi > 1<<24 {
			return hi
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if expm.ChebyshevTail(a, mid) <= tol {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
