package job

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestScoredPartitionProperty: every kind ScoredPartition reads is
// accepted, a property named; anything else is bad input naming the
// parameter and what it got.
func TestScoredPartitionProperty(t *testing.T) {
	for _, c := range []struct {
		kind, property string
		isProperty     bool
		bad            bool
	}{
		{"", "", false, false},
		{"planted", "", false, false},
		{"leiden", "", false, false},
		{"louvain", "", false, false},
		{"file:c.csv", "", false, false},
		{"property:louvain", "louvain", true, false},
		{"gds:leiden", "", false, true},
		{"Leiden", "", false, true},
	} {
		p, isp, err := ScoredPartitionProperty(c.kind)
		switch {
		case c.bad:
			msg := errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" })
			if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(msg, "<communities> must be") || !strings.Contains(msg, `"`+c.kind+`"`) {
				t.Errorf("%q: %v, want bad input naming the parameter", c.kind, err)
			}
		case err != nil || p != c.property || isp != c.isProperty:
			t.Errorf("%q: %q, %v, %v; want %q, %v", c.kind, p, isp, err, c.property, c.isProperty)
		}
	}
}
