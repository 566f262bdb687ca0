package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestRender(t *testing.T) {
	flag := func(p Param) string { return "--" + string(p) }
	inner := Errorf("%s: %w", Param("out"), errors.New("exists"))
	err := fmt.Errorf("release: %w (use a new %s)", Errorf("%w; give another %s", inner, Param("out")), Param("epoch"))
	// A Param in a plain fmt.Errorf reads as its name and stays so.
	if got, want := err.Error(), "release: out: exists; give another out (use a new epoch)"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := Render(err, flag), "release: --out: exists; give another --out (use a new epoch)"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got := Render(err, nil); got != err.Error() {
		t.Errorf("Render(nil) = %q", got)
	}
	if !errors.Is(err, inner) {
		t.Error("a Message does not wrap its error arguments")
	}
	var k interface{ Kind() Kind }
	typedErr := Errorf("x: %w", &typed{Budget})
	if !errors.As(typedErr, &k) || Of(typedErr) != Budget {
		t.Errorf("Of(Message wrapping Budget) = %v", Of(typedErr))
	}
}
