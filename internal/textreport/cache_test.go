package textreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/job"
)

// The store's report: a prune's line only after a prune, the store's
// size and its bound's variable, a line a file in the order given, its
// time in UTC.
func TestCache(t *testing.T) {
	used := time.Date(2026, 11, 28, 6, 0, 0, 0, time.FixedZone("CET", 3600))
	r := job.StoreReport{Dir: "/c/store", MaxBytes: 1 << 30, Files: 2, Bytes: 300, Freed: 50,
		Removed: []job.StoreEntry{{Name: "old", Bytes: 50}},
		Entries: []job.StoreEntry{{Name: "a.cert", Bytes: 100, Used: used}, {Name: "b.audit", Bytes: 200, Used: used.Add(time.Hour)}}}
	for _, pruned := range []bool{false, true} {
		var b bytes.Buffer
		Cache(&b, r, pruned)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if pruned {
			if lines[0] != "removed 1 files (50 bytes)" {
				t.Errorf("prune line %q", lines[0])
			}
			lines = lines[1:]
		}
		want := []string{"store /c/store: 2 files, 300 bytes (bound 1073741824 bytes, GRAPHCLOAK_CACHE_MAX)",
			"  2026-11-28T05:00:00Z         100  a.cert", "  2026-11-28T06:00:00Z         200  b.audit"}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("pruned %v:\n%s\nwant\n%s", pruned, strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	}
}
