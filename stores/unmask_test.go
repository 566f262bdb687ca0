package stores

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// UnmaskRequest.Check takes a key and exactly one release, a file or a
// Neo4j run; anything else is a usage error naming what is missing.
func TestUnmaskRequestCheck(t *testing.T) {
	name := func(p errkind.Param) string {
		return map[errkind.Param]string{"release": "--release", "release run": "--release-run", "graph": "--graph", "key": "--key"}[p]
	}
	for _, c := range []struct {
		name string
		req  UnmaskRequest
		text string // "": accepted
	}{
		{"file", UnmaskRequest{KeyFile: "k", ReleaseFile: "r.json"}, ""},
		{"neo4j run", UnmaskRequest{KeyFile: "k", Graph: "neo4j", ReleaseRun: "run-1"}, ""},
		{"no key", UnmaskRequest{ReleaseFile: "r.json"}, "unmask needs --key FILE"},
		{"no release", UnmaskRequest{KeyFile: "k"}, "unmask needs --release FILE, or --graph neo4j --release-run RUNID"},
		{"both", UnmaskRequest{KeyFile: "k", ReleaseFile: "r.json", Graph: "neo4j", ReleaseRun: "run-1"}, "give either --release FILE or --graph neo4j --release-run RUNID, not both"},
		{"run without graph", UnmaskRequest{KeyFile: "k", ReleaseRun: "run-1"}, "unmask from the database needs --graph neo4j and --release-run RUNID"},
		{"graph without run", UnmaskRequest{KeyFile: "k", Graph: "neo4j"}, "unmask from the database needs"},
		{"another graph", UnmaskRequest{KeyFile: "k", Graph: "karate", ReleaseRun: "run-1"}, "unmask from the database needs"},
	} {
		err := c.req.Check()
		if c.text == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else if errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, name), c.text) {
			t.Errorf("%s: %v, want usage naming %q", c.name, err, c.text)
		}
	}
}
