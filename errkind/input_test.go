package errkind

import (
	"errors"
	"testing"
)

// TestInputKind: Input is bad input unless what it wraps has a kind of its
// own, and it keeps what it wraps reachable and its parameters renderable.
func TestInputKind(t *testing.T) {
	unreachable := New(Unreachable, "no server")
	for _, c := range []struct {
		err  error
		want Kind
	}{
		{Input(errors.New("malformed row 3")), BadInput},
		{Input(unreachable), Unreachable},
		{Inputf("read %v: %w", Param("values"), unreachable), Unreachable},
		{Inputf("%v must be positive", Param("tau")), BadInput},
	} {
		if got := Of(c.err); got != c.want {
			t.Errorf("Of(%q) = %v, want %v", c.err, got, c.want)
		}
	}
	if err := Input(unreachable); !errors.Is(err, unreachable) {
		t.Errorf("Input hides what it wraps: %v", err)
	}
	got := Render(Inputf("%v must be positive", Param("tau")), func(p Param) string { return "--" + string(p) })
	if got != "--tau must be positive" {
		t.Errorf("Render = %q, want the parameter named by the caller", got)
	}
}
