package cost

import (
	"strings"
	"testing"
	"time"
)

// TestDetectionLine: the communities command's line is said exactly when
// detectionStep models the step longer than the bound, and names the method,
// the relationships and detectionStep's time.
func TestDetectionLine(t *testing.T) {
	for _, edges := range []int{0, 78, 1e5, 1e7, 1e9} {
		for _, long := range []time.Duration{0, 5 * time.Second} {
			line := DetectionLine("louvain", edges, long)
			st := detectionStep(edges)
			if (line != "") != (st.Seconds > long.Seconds()) {
				t.Errorf("%d relationships, bound %v: modelled %g s, line %q", edges, long, st.Seconds, line)
			}
			if line != "" && !strings.HasPrefix(line, "estimated "+Human(st.Seconds)+" for louvain on ") {
				t.Errorf("line %q", line)
			}
		}
	}
}
