package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
)

// TestCommunitiesSizes: the summary lists the sizes up to maxSizesShown
// and counts the rest.
func TestCommunitiesSizes(t *testing.T) {
	for _, k := range []int{3, maxSizesShown, maxSizesShown + 5} {
		sizes := make([]int, k)
		for i := range sizes {
			sizes[i] = 100 - i
		}
		var b bytes.Buffer
		Communities(&b, &community.Summary{Graph: "g", Method: "leiden", CommunityCount: k, CommunitySizes: sizes}, "proc")
		line := lineWith(b.String(), "sizes: ")
		if shown := strings.Count(line, ",") + 1; shown != min(k, maxSizesShown) {
			t.Errorf("k=%d: %d sizes shown: %q", k, shown, line)
		}
		if more := strings.Contains(line, "more)"); more != (k > maxSizesShown) {
			t.Errorf("k=%d: %q", k, line)
		}
	}
}

// TestCommunitiesReadPath: a Neo4j read names the read procedure when it
// was used, and when it was not, why (the note the read left, else its
// absence); graphs read elsewhere say nothing of it.
func TestCommunitiesReadPath(t *testing.T) {
	for _, c := range []struct {
		path, note, want string
	}{
		{"procedure", "", "by graphcloak's Neo4j plugin (proc)"},
		{"cypher", "", "by Cypher (the server has no proc:"},
		{"cypher", "the plugin is too old", "by Cypher (the plugin is too old)"},
		{"", "", ""},
	} {
		var b bytes.Buffer
		Communities(&b, &community.Summary{Graph: "neo4j", ReadPath: c.path, ReadNote: c.note, CommunitySizes: []int{2}}, "proc")
		got := lineWith(b.String(), "read in")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("read path %q, note %q: %q, want %q", c.path, c.note, got, c.want)
		}
	}
}

// TestCommunitiesEstimate: the estimate prints its readable size, its
// bytes and the order of its time.
func TestCommunitiesEstimate(t *testing.T) {
	var b bytes.Buffer
	CommunitiesEstimate(&b, community.MemoryEstimate{Graph: "karate", NodeCount: 34, RelationshipCount: 78, EstimatedBytes: 3 << 20, Estimated: "3.0 MiB",
		EstimatedSeconds: 43})
	if want := "graph karate: 34 nodes, 78 relationships\nestimated peak memory: 3.0 MiB (3145728 bytes)\nestimated time: about 43 s (5 µs a relationship on the reference machine)\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
