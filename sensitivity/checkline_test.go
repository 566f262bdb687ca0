package sensitivity

import (
	"math"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestCheckLine: CheckLine refuses, as bad input naming the parameter,
// exactly the line kernels Line cannot compute, and passes the smallest
// it can (n = m = 1), which Line then computes.
func TestCheckLine(t *testing.T) {
	flag := func(p errkind.Param) string { return "--" + string(p) }
	if err := CheckLine(1, 1, math.SmallestNonzeroFloat64); err != nil {
		t.Errorf("smallest line: %v", err)
	}
	if _, err := Line(1, 1, 0.05, 1); err != nil {
		t.Errorf("Line refuses what CheckLine passes: %v", err)
	}
	for _, c := range []struct {
		n, m int
		T    float64
		want string
	}{
		{0, 1, 1, "--n must be ≥ 1, got 0"},
		{1, 0, 1, "--m must be ≥ 1, got 0"},
		{1, 1, 0, "--T must be > 0 and finite, got 0"},
		{1, 1, math.Inf(1), "--T must be > 0 and finite, got +Inf"},
		{1, 1, math.NaN(), "--T must be > 0 and finite, got NaN"},
	} {
		err := CheckLine(c.n, c.m, c.T)
		if err == nil || errkind.Render(err, flag) != c.want || errkind.Of(err) != errkind.BadInput {
			t.Errorf("CheckLine(%d, %d, %v) = %v, want bad input %q", c.n, c.m, c.T, err, c.want)
		}
		if _, lerr := Line(c.n, c.m, c.T, 1); lerr == nil {
			t.Errorf("Line(%d, %d, %v) computes what CheckLine refuses", c.n, c.m, c.T)
		}
	}
}
