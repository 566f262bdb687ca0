package expm

import "fmt"

// ParamError reports an invalid numeric parameter (τ, tolerance, T, …).
type ParamError struct {
	Name  string  // parameter name as the user knows it, e.g. "tau"
	Value float64 // the rejected value
	Want  string  // the accepted range, e.g. "positive and finite"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("expm: %s must be %s, got %v", e.Name, e.Want, e.Value)
}

// TooLargeError reports a dense request refused because n exceeds the
// configured limit; it is returned before anything of size n² is allocated.
type TooLargeError struct {
	N, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("expm: dense exp(−τL) refused: n = %d exceeds the dense limit %d (n² = %d float64s)",
		e.N, e.Limit, int64(e.N)*int64(e.N))
}

// ToleranceError reports a requested accuracy below what the Chebyshev
// action can certify in floating point: the rounding margin alone (Floor)
// exceeds the tolerance.
type ToleranceError struct {
	Tol, Floor float64
}

func (e *ToleranceError) Error() string {
	return fmt.Sprintf("expm: tolerance %g is below the certified rounding floor %g; use a larger tolerance", e.Tol, e.Floor)
}

func checkTau(tau float64) error {
	if !(tau > 0) || tau > maxFinite {
		return &ParamError{Name: "tau", Value: tau, Want: "positive and finite"}
	}
	return nil
}

func checkTol(tol float64) error {
	if !(tol > 0 && tol < 1) {
		return &ParamError{Name: "tol", Value: tol, Want: "in (0, 1)"}
	}
	return nil
}

const maxFinite = 1.7976931348623157e308
