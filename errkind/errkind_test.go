package errkind

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

type typed struct{ k Kind }

func (e *typed) Error() string { return "typed" }
func (e *typed) Kind() Kind    { return e.k }

type wrapper struct {
	k   Kind
	err error
}

func (e wrapper) Error() string { return "wrapper: " + e.err.Error() }
func (e wrapper) Unwrap() error { return e.err }
func (e wrapper) Kind() Kind    { return e.k }

func TestOf(t *testing.T) {
	errBudget := New(Budget, "over budget")
	cases := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, Internal},
		{"plain", errors.New("boom"), Internal},
		{"sentinel", errBudget, Budget},
		{"wrapped sentinel", fmt.Errorf("release: %w", errBudget), Budget},
		{"typed", &typed{Database}, Database},
		{"outermost wins", wrapper{Charged, &typed{Budget}}, Charged},
		{"cancelled beats kinds", wrapper{BadInput, fmt.Errorf("%w", context.Canceled)}, Interrupted},
		{"missing file", fmt.Errorf("open x: %w", fs.ErrNotExist), BadInput},
		{"kind beats missing file", wrapper{Unreachable, fs.ErrNotExist}, Unreachable},
		{"not permitted", fmt.Errorf("x: %w", &fs.PathError{Op: "open", Path: "k", Err: syscall.EACCES}), BadInput},
		{"a directory", fmt.Errorf("x: %w", &fs.PathError{Op: "read", Path: "d", Err: syscall.EISDIR}), BadInput},
		{"under a file", &fs.PathError{Op: "open", Path: "f/x", Err: syscall.ENOTDIR}, BadInput},
		{"a socket", &fs.PathError{Op: "open", Path: "s", Err: syscall.ENXIO}, BadInput},
		{"disk full is no path's fault", &fs.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC}, Internal},
	}
	for _, c := range cases {
		if got := Of(c.err); got != c.want {
			t.Errorf("%s: Of = %v, want %v", c.name, got, c.want)
		}
	}
	if !errors.Is(fmt.Errorf("x: %w", errBudget), errBudget) || errors.Is(New(Budget, "over budget"), errBudget) {
		t.Error("sentinels must compare by identity")
	}
}

func TestKindString(t *testing.T) {
	seen := map[string]bool{}
	for k := Internal; k <= Busy; k++ {
		s := k.String()
		if seen[s] {
			t.Errorf("kind %d repeats name %q", k, s)
		}
		seen[s] = true
	}
	if Kind(99).String() != "internal" {
		t.Error("unknown kinds print as internal")
	}
}
