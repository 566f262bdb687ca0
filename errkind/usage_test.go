package errkind

import (
	"errors"
	"testing"
)

// TestUsageKind: Usagef is usage unless what it wraps has a kind of its
// own; it keeps what it wraps reachable and its parameters renderable.
func TestUsageKind(t *testing.T) {
	unreachable := New(Unreachable, "no server")
	plain := errors.New("two names")
	for _, c := range []struct {
		err  error
		want Kind
	}{
		{Usagef("give %v or %v, not both", Param("a"), Param("b")), Usage},
		{Usagef("%w", plain), Usage},
		{Usagef("%w", unreachable), Unreachable},
		{Usagef("read %v: %w", Param("graph"), unreachable), Unreachable},
		{Usagef("%v: %s", Param("shard"), unreachable.Error()), Usage},
		{Input(Usagef("%v is fixed", Param("x"))), Usage},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%q) = %v, want %v", c.err, got, c.want)
		}
	}
	if err := Usagef("%w", plain); !errors.Is(err, plain) || err.Error() != plain.Error() {
		t.Errorf("Usagef(%%w) changes or hides what it wraps: %v", err)
	}
	name := func(p Param) string { return "--" + string(p) }
	if got := Render(Usagef("give %v or %v, not both", Param("a"), Param("b")), name); got != "give --a or --b, not both" {
		t.Errorf("Render = %q, want the parameters named by the caller", got)
	}
	if got := Render(Usagef("%w", Inputf("%v must be positive", Param("tau"))), name); got != "--tau must be positive" {
		t.Errorf("Render through Usagef(%%w) = %q", got)
	}
}
