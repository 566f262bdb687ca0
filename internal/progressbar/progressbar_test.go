package progressbar

import (
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total int
		want        string
	}{
		{0, 10, "Δ2           [..............................]   0% 0/10"},
		{5, 10, "Δ2           [###############...............]  50% 5/10"},
		{10, 10, "Δ2           [##############################] 100% 10/10"},
		{12, 10, "Δ2           [##############################] 100% 10/10"},
		{7, 0, "Δ2           7"},
	}
	for _, tc := range tests {
		if got := Line("Δ2", tc.done, tc.total); got != tc.want {
			t.Errorf("Line(%d, %d) = %q, want %q", tc.done, tc.total, got, tc.want)
		}
	}
}

// The ETA extrapolates the rate so far, and says nothing before a few
// seconds or once done.
func TestETA(t *testing.T) {
	if got := eta(10*time.Second, 25, 100); !strings.Contains(got, "ETA 30s") {
		t.Errorf("a quarter done in 10 s: %q, want 30 s left", got)
	}
	for _, c := range [][3]int{{1, 0, 100}, {10, 100, 100}, {10, 0, 100}, {10, 5, 0}} {
		if got := eta(time.Duration(c[0])*time.Second, c[1], c[2]); got != "" {
			t.Errorf("eta(%ds, %d, %d) = %q, want none", c[0], c[1], c[2], got)
		}
	}
}
