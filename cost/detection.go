package cost

import (
	"fmt"
	"time"

	"github.com/graphcloak/graphcloak/community"
)

// DetectionLine is the line the communities command says before a
// detection by method on a graph of edges relationships that detectionStep
// models to take longer than long; "" when it does not.
func DetectionLine(method string, edges int, long time.Duration) string {
	st := detectionStep(edges)
	if st.Seconds <= long.Seconds() {
		return ""
	}
	return fmt.Sprintf("estimated %s for %s on %d relationships (about %g µs a relationship on the reference machine, docs/results.md)",
		Human(st.Seconds), method, edges, community.DetectionMicrosPerEdge)
}
