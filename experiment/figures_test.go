package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSweepSeriesFixed(t *testing.T) {
	for _, c := range []struct {
		s    SweepSeries
		want string
	}{
		{SweepSeries{Param: "m", N: 50, T: 0.5, Alpha: 1}, "n=50 T=0.5 α=1"},
		{SweepSeries{Param: "n", M: 3, T: 0.5, Alpha: 1}, "m=3 T=0.5 α=1"},
		{SweepSeries{Param: "T", M: 3, N: 50, Alpha: 2}, "m=3 n=50 α=2"},
	} {
		if got := c.s.Fixed(); got != c.want {
			t.Errorf("%s: %q, want %q", c.s.Param, got, c.want)
		}
	}
}

// The sweep's figure is drawn by τ or by ε.
func TestGraphSummaryPlot(t *testing.T) {
	pts := []RatePoint{{Tau: 1, Epsilon: 1, Rate: 0.5, Lo: 0.4, Hi: 0.6}, {Tau: 1, Epsilon: 4, Rate: 0.8, Lo: 0.7, Hi: 0.9}}
	s := GraphSummary{Community: pts, ExactNode: pts, CommunityChance: 0.25, ExactNodeChance: 0.01}
	for _, byTau := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "sweep.svg")
		if err := s.Plot(path, "caption", byTau); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("byTau %v: no picture (%v)", byTau, err)
		}
	}
}
