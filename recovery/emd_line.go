package recovery

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/errkind"
)

// ErrZeroMass is returned by the EMD functions when a vector has no mass:
// the normalised EMD is undefined (for example when BPDN returns f = 0).
var ErrZeroMass = errkind.New(errkind.BadInput, "recovery: emd of a vector with zero mass is undefined")

// ErrNegativeMass is returned when a vector has a negative or non-finite
// entry.
var ErrNegativeMass = errkind.New(errkind.BadInput, "recovery: emd needs finite non-negative mass")

// normalise checks p and returns p/‖p‖₁.
func normalise(p []float64, name string) ([]float64, error) {
	s := 0.0
	for i, x := range p {
		if !(x >= 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %s[%d] = %v", ErrNegativeMass, name, i, x)
		}
		s += x
	}
	if s == 0 {
		return nil, fmt.Errorf("%w (%s)", ErrZeroMass, name)
	}
	out := make([]float64, len(p))
	for i, x := range p {
		out[i] = x / s
	}
	return out, nil
}

// EMDLine is the earth mover's distance between p/‖p‖₁ and q/‖q‖₁ on
// equally spaced points of a line:
//
//	EMD = Σ_{i<n} |P_i − Q_i| · spacing,   P_i, Q_i the cumulative sums,
//
// the closed form of the 1-D Wasserstein-1 distance (Vallender 1974).
// It panics if len(p) != len(q).
func EMDLine(p, q []float64, spacing float64) (float64, error) {
	if len(p) != len(q) {
		panic("recovery: EMDLine length mismatch")
	}
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return 0, fmt.Errorf("recovery: emd spacing %v must be positive and finite", spacing)
	}
	pn, err := normalise(p, "p")
	if err != nil {
		return 0, err
	}
	qn, err := normalise(q, "q")
	if err != nil {
		return 0, err
	}
	var cp, cq, sum float64
	for i := 0; i+1 < len(pn); i++ {
		cp += pn[i]
		cq += qn[i]
		sum += math.Abs(cp - cq)
	}
	return sum * spacing, nil
}
