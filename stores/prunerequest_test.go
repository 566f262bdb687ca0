package stores

import (
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
)

// PruneRequest.Check needs Keep or OlderThan, neither negative, and keeps
// every record by count (-1) when Keep is not given; Cutoff is OlderThan
// before now, or none.
func TestPruneRequest(t *testing.T) {
	for _, c := range []struct {
		name     string
		req      PruneRequest
		kind     errkind.Kind
		text     string
		wantKeep int
	}{
		{"keep 1000", PruneRequest{Keep: 1000, KeepGiven: true}, errkind.Internal, "", 1000},
		{"keep none", PruneRequest{KeepGiven: true}, errkind.Internal, "", 0},
		{"older than 90 days", PruneRequest{OlderThan: 2160 * time.Hour, OlderGiven: true}, errkind.Internal, "", -1},
		{"both", PruneRequest{Keep: 5, OlderThan: time.Hour, KeepGiven: true, OlderGiven: true}, errkind.Internal, "", 5},
		{"neither", PruneRequest{}, errkind.Usage, "give --keep N or --older-than DURATION (or both)", 0},
		{"negative keep", PruneRequest{Keep: -1, KeepGiven: true}, errkind.BadInput, "--keep must be ≥ 0, got -1", 0},
		{"negative age", PruneRequest{OlderThan: -time.Hour, OlderGiven: true}, errkind.BadInput, "--keep and --older-than must not be negative", 0},
	} {
		keep, err := c.req.Check()
		switch {
		case c.text != "" && (errkind.Of(err) != c.kind || !strings.Contains(errkind.Render(err, flagOf), c.text)):
			t.Errorf("%s: %v (kind %v), want %v naming %q", c.name, err, errkind.Of(err), c.kind, c.text)
		case c.text == "" && (err != nil || keep != c.wantKeep):
			t.Errorf("%s: keep %d, %v, want %d", c.name, keep, err, c.wantKeep)
		}
	}
	now := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	if got := (PruneRequest{OlderThan: 24 * time.Hour}).Cutoff(now); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("cutoff %v", got)
	}
	if got := (PruneRequest{Keep: 3}).Cutoff(now); !got.IsZero() {
		t.Errorf("no age: cutoff %v, want none", got)
	}
}
