package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/demo"
)

// TestDemoWithTradeOff: the demo's text is Demo's, then the trade-off
// paragraph, then the picture's line only when one was drawn.
func TestDemoWithTradeOff(t *testing.T) {
	rep := &community.Report{Communities: []community.Ranked{{ID: 0, Name: "0", Rank: 1, Share: 1, Size: 3}}}
	for _, plot := range []string{"", "k.png"} {
		run := &demo.Result{Communities: "planted", Partition: []int{0, 0, 0}, Source: 1,
			Summary: &demo.Summary{Graph: "path:n=3", NodeCount: 3, RelationshipCount: 2, Source: "1", SourceCommunity: "0",
				Tau: 1, Epsilon: 1, Delta: 1e-5, Delta2: 0.5, Sigma: 2, Rho: 0.03, Estimator: "posterior", Status: "ok", Report: rep, Plot: plot}}
		var story, b bytes.Buffer
		if err := Demo(&story, run); err != nil {
			t.Fatal(err)
		}
		if err := DemoWithTradeOff(&b, run, dashes); err != nil {
			t.Fatal(err)
		}
		rest, ok := strings.CutPrefix(b.String(), story.String())
		if !ok || !strings.HasPrefix(rest, "\nThis is one draw of a random mechanism") || !strings.Contains(rest, "raise --epsilon") {
			t.Errorf("plot %q: not Demo's text then the trade-off:\n%s", plot, b.String())
		}
		if got := strings.Contains(rest, "picture: k.png\n"); got != (plot != "") {
			t.Errorf("plot %q: picture line shown %v:\n%s", plot, got, rest)
		}
	}
}
