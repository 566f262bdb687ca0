package progressbar

import (
	"fmt"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// Sensitivity returns a status callback (sensitivity.Options.Status)
// drawing a Δ2 computation's progress on w, a terminal, in one line: the
// edges certified, the bound on Δ2 so far, the time elapsed and the
// scheme's ETA. It redraws at most five times a second, and always when
// every edge is certified; the caller ends the line.
func Sensitivity(w io.Writer) func(sensitivity.Interim) {
	var last time.Time
	return func(st sensitivity.Interim) {
		if time.Since(last) < 200*time.Millisecond && st.EdgesCertified < st.Edges {
			return
		}
		last = time.Now()
		eta := "?"
		switch {
		case st.EdgesCertified >= st.Edges:
			eta = "0s"
		case st.ETA > 0:
			eta = "≈ " + st.ETA.Round(time.Second).String() // the scheme's guess (sensitivity.Interim)
		}
		fmt.Fprintf(w, "\rsensitivity: %d/%d edges certified, Δ2 ≤ %.9g, %s elapsed, ETA %s   ",
			st.EdgesCertified, st.Edges, st.Delta2, st.Elapsed.Round(time.Second), eta)
	}
}
