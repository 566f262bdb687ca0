//go:build !amd64 || purego

package expm

const useAVX2 = false

// rows8 has no vector version here: rowsB runs every column in Go.
func rows8(m *csr, lo, hi int, out, x, z, acc []float64, b, chunks int, alpha, beta, gam, ck, c0 float64) bool {
	return false
}
