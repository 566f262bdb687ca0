package errkind

import "math"

// Input marks err as bad input unless what it wraps has a kind of its own
// (a missing file stays bad input, a refused password unreachable).
func Input(err error) error { return marked{err, BadInput} }

// Mark is err of kind k unless what it wraps has a kind of its own: how
// the errors of a package that names no kinds (sensor) get theirs.
func Mark(err error, k Kind) error { return marked{err, k} }

// Inputf is Input of Errorf(format, args...): its parameters render by name.
func Inputf(format string, args ...any) error { return marked{Errorf(format, args...), BadInput} }

// Usagef is a bad request (kind Usage) with the text of Errorf(format,
// args...): parameters that do not go together, one missing, a name
// outside the choices offered. As with Input, what it wraps keeps a kind
// of its own (a connector error reached while reading a graph stays
// unreachable); Usagef("%w", err) marks err itself. Every error argument
// is wrapped, whatever its verb: pass err.Error() for text alone.
func Usagef(format string, args ...any) error { return marked{Errorf(format, args...), Usage} }

// marked is err of kind kind unless err has a kind of its own.
type marked struct {
	err  error
	kind Kind
}

func (e marked) Error() string { return e.err.Error() }
func (e marked) Unwrap() error { return e.err }
func (e marked) Kind() Kind {
	if k := Of(e.err); k != Internal {
		return k
	}
	return e.kind
}

// CheckPositive refuses (bad input) a value of param that is not a
// positive, finite number.
func CheckPositive(param Param, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return Inputf("%s must be positive and finite, got %v", param, v)
	}
	return nil
}
