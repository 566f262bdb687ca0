package errkind

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
