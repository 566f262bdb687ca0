package job

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// A forecast's smoothings: auto is m·τ for each candidate m > 0, given
// values are kept but 0, and anything else is bad input quoting the list.
func TestSmoothListTaus(t *testing.T) {
	var auto []float64
	for _, m := range SmoothCandidates {
		if m > 0 {
			auto = append(auto, 2*m)
		}
	}
	for _, c := range []struct {
		list SmoothList
		want []float64
		bad  bool
	}{
		{"0", nil, false},
		{"auto", auto, false},
		{" auto ", auto, false},
		{"0.5, 1,0", []float64{0.5, 1}, false},
		{"3", []float64{3}, false},
		{"x", nil, true},
		{"-1", nil, true},
		{"1,inf", nil, true},
		{"NaN", nil, true},
		{"", nil, true},
	} {
		got, err := c.list.Taus(2)
		switch {
		case c.bad && (errkind.Of(err) != errkind.BadInput ||
			!strings.Contains(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }), "--smooth must be auto or τ′ values")):
			t.Errorf("%q: %v (%v), want bad input naming --smooth", c.list, got, err)
		case !c.bad && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%q: %v (%v), want %v", c.list, got, err, c.want)
		}
	}
}
