// Package errkind classifies graphcloak's errors by what the caller can do
// about them, so that a command maps them to exit codes in one place.
//
// A library error carries its kind: error types implement
//
//	Kind() errkind.Kind
//
// and sentinel errors are made with New. Of finds the outermost kind in an
// error's chain, so a caller that wraps an error in one of its own kinds
// overrides the kind of what it wraps.
package errkind

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
)

// Kind is a class of failure.
type Kind int

const (
	// Internal is an unexpected failure: a bug or an unclassified error.
	Internal Kind = iota
	// Usage is a bad command line: unknown flags or subcommands, missing
	// or contradictory arguments.
	Usage
	// BadInput is invalid input data or parameter values: the same call
	// with the same input fails again.
	BadInput
	// Unreachable is a database that cannot be reached, refuses the
	// credentials or does not answer in time.
	Unreachable
	// Budget is a privacy ledger that refuses a release: the budget would
	// be exceeded.
	Budget
	// Database is a database that was reached but failed the request.
	Database
	// Charged is an epoch already charged whose values cannot be
	// published: re-release under a new epoch.
	Charged
	// Interrupted is a run stopped by a signal or a cancelled context.
	Interrupted
	// Busy is a resource held by another live run (a privacy scope being
	// released): the same call succeeds once that run ends.
	Busy
)

var names = [...]string{"internal", "usage", "bad-input", "unreachable", "budget", "database", "charged", "interrupted", "busy"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "internal"
}

// Of returns the kind of err: Interrupted for a cancelled context, else the
// kind of the outermost error in the chain that has one, else BadInput for
// a path that cannot be used (missing, a directory where a file is
// wanted or the reverse, not permitted, not a file that opens), else
// Internal. Of(nil) is Internal.
func Of(err error) Kind {
	if err == nil {
		return Internal
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	var k interface{ Kind() Kind }
	if errors.As(err, &k) {
		return k.Kind()
	}
	if unusablePath(err) {
		return BadInput
	}
	return Internal
}

// unusablePath reports an operation on a path that failed because of the
// path: the same call fails again until the user gives another.
func unusablePath(err error) bool {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return true
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	return errors.Is(pe.Err, syscall.EISDIR) || errors.Is(pe.Err, syscall.ENOTDIR) || errors.Is(pe.Err, syscall.ENXIO)
}

// New returns a sentinel error of kind k with the given text; compare it
// with errors.Is as usual.
func New(k Kind, text string) error { return &sentinel{k, text} }

type sentinel struct {
	kind Kind
	text string
}

func (e *sentinel) Error() string { return e.text }
func (e *sentinel) Kind() Kind    { return e.kind }
