package job

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
)

// A local release's plan names the central private answer's rows when it
// forecast them, says the answer is not offered otherwise, and counts
// the missing sensors so that the silent and the reporting ones make n.
func TestLocalReport(t *testing.T) {
	perNode := forecast.Forecast{Mode: forecast.ModePerNode, Epsilon: 1, CommunityAccuracy: 0.9}
	ans := forecast.Forecast{Mode: forecast.ModeAnswer, Epsilon: 2, CommunityAccuracy: 0.625}
	only := &ForecastReport{Result: &forecast.EpsilonSweepResult{Forecasts: []forecast.Forecast{perNode}}}
	if got := localReport(only, 0, 34); got != LocalNoAnswer {
		t.Errorf("no answer rows: %q, want %q", got, LocalNoAnswer)
	}
	both := &ForecastReport{Result: &forecast.EpsilonSweepResult{Forecasts: []forecast.Forecast{perNode, ans}}}
	got := localReport(both, 0, 34)
	if !strings.Contains(got, "0.62 at ε = 2") || strings.Contains(got, "0.90") || strings.Contains(got, "\n") {
		t.Errorf("with an answer row: %q, want its accuracy at its ε alone, on one line", got)
	}
	for _, c := range []struct {
		q      float64
		n, off int
	}{{0.1, 34, 3}, {0.5, 10, 5}, {0.99, 10, 9}} {
		lines := strings.Split(localReport(only, c.q, c.n), "\n")
		want := fmt.Sprintf("missing sensors: %d of %d", c.off, c.n)
		rest := fmt.Sprintf("locates from the %d that report", c.n-c.off)
		if len(lines) != 2 || !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], rest) {
			t.Errorf("missing %v of %d: %q, want a second line %q … %q", c.q, c.n, lines, want, rest)
		}
	}
}
