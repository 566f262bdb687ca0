package errkind

import "math"

// Input marks err as bad input unless what it wraps has a kind of its own
// (a missing file stays bad input, a refused password unreachable).
func Input(err error) error { return inputError{err} }

// Inputf is Input of Errorf(format, args...): its parameters render by name.
func Inputf(format string, args ...any) error { return inputError{Errorf(format, args...)} }

type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }
func (e inputError) Kind() Kind {
	if k := Of(e.err); k != Internal {
		return k
	}
	return BadInput
}

// CheckPositive refuses (bad input) a value of param that is not a
// positive, finite number.
func CheckPositive(param Param, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return Inputf("%s must be positive and finite, got %v", param, v)
	}
	return nil
}
