package job

import (
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/errkind"
)

// ChargedError: the epoch was charged but its values cannot be published
// (exit code 7). Publishing the data again needs a new epoch and a new
// charge; never a re-draw of the same epoch.
type ChargedError struct {
	Epoch string
	Err   error
}

func (e *ChargedError) Error() string {
	return fmt.Sprintf("epoch %q is charged but its values cannot be published: %v (release under a new --epoch; that costs ρ again)", e.Epoch, e.Err)
}

func (e *ChargedError) Unwrap() error    { return e.Err }
func (*ChargedError) Kind() errkind.Kind { return errkind.Charged }

// NotStoredError: the release's values could not be stored (or its run
// record not updated) before any node was written. The epoch is charged
// but nothing can re-publish it.
type NotStoredError struct{ Err error }

func (e *NotStoredError) Error() string {
	return "the released values were not stored: " + e.Err.Error()
}
func (e *NotStoredError) Unwrap() error    { return e.Err }
func (*NotStoredError) Kind() errkind.Kind { return errkind.Charged }

// inputError is bad input (exit 3) unless what it wraps has a kind of its
// own (a missing file stays bad input, a refused password unreachable).
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }
func (e inputError) Kind() errkind.Kind {
	if k := errkind.Of(e.err); k != errkind.Internal {
		return k
	}
	return errkind.BadInput
}

func inputErrorf(format string, args ...any) error {
	return inputError{fmt.Errorf(format, args...)}
}

// CheckPositive refuses (exit 3) a --flag value that is not a positive,
// finite number; the commands check their own flags with it too.
func CheckPositive(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return inputErrorf("--%s must be positive and finite, got %v", flag, v)
	}
	return nil
}
