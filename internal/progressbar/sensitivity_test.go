package progressbar

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestSensitivity: each draw rewrites the line; updates closer than the
// redraw interval are dropped unless every edge is certified; the ETA is
// "?" without the scheme's guess, the guess rounded, and 0s when done.
func TestSensitivity(t *testing.T) {
	var b bytes.Buffer
	status := Sensitivity(&b)
	status(sensitivity.Interim{Edges: 10, EdgesCertified: 2, Delta2: 0.5, Elapsed: 3 * time.Second})
	status(sensitivity.Interim{Edges: 10, EdgesCertified: 3, Delta2: 0.5, ETA: 4 * time.Second}) // too soon: dropped
	status(sensitivity.Interim{Edges: 10, EdgesCertified: 10, Delta2: 0.25, Elapsed: 5 * time.Second})
	draws := strings.Split(b.String(), "\r")[1:]
	if len(draws) != 2 || strings.Contains(b.String(), "\n") {
		t.Fatalf("draws %q, want 2 on one line", draws)
	}
	if !strings.HasPrefix(draws[0], "sensitivity: 2/10 edges certified, Δ2 ≤ 0.5, 3s elapsed, ETA ?") {
		t.Errorf("first draw %q", draws[0])
	}
	if !strings.HasPrefix(draws[1], "sensitivity: 10/10 edges certified, Δ2 ≤ 0.25, 5s elapsed, ETA 0s") {
		t.Errorf("last draw %q", draws[1])
	}
	b.Reset()
	time.Sleep(210 * time.Millisecond)
	status(sensitivity.Interim{Edges: 10, EdgesCertified: 3, ETA: 4400 * time.Millisecond})
	if !strings.Contains(b.String(), "ETA ≈ 4s") {
		t.Errorf("with the scheme's guess: %q", b.String())
	}
}
