package job

import (
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestParseSmooth: none, auto and finite τ′ ≥ 0 are read; anything else
// is bad input naming the parameter.
func TestParseSmooth(t *testing.T) {
	for _, c := range []struct {
		in     string
		smooth float64
		auto   bool
		bad    bool
	}{
		{"", 0, false, false},
		{"auto", 0, true, false},
		{"0", 0, false, false},
		{"2.5", 2.5, false, false},
		{"-1", 0, false, true},
		{"Inf", 0, false, true},
		{"NaN", 0, false, true},
		{"Auto", 0, false, true},
		{"1s", 0, false, true},
	} {
		smooth, auto, err := ParseSmooth(c.in)
		if (err != nil) != c.bad || smooth != c.smooth || auto != c.auto {
			t.Errorf("ParseSmooth(%q) = %g, %v, %v", c.in, smooth, auto, err)
			continue
		}
		if c.bad {
			if errkind.Of(err) != errkind.BadInput {
				t.Errorf("ParseSmooth(%q): kind %v, want bad input", c.in, errkind.Of(err))
			}
			if got := errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" }); got[:len("<smooth>")] != "<smooth>" {
				t.Errorf("ParseSmooth(%q): %q does not name the parameter", c.in, got)
			}
		}
	}
}
