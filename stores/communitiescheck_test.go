package stores

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// Communities.Check accepts each kind of communities where it runs and
// refuses the rest with its kind, naming the parameter at fault.
func TestCommunitiesCheck(t *testing.T) {
	const ok errkind.Kind = -1
	flags := func(p errkind.Param) string { return "--" + string(p) }
	for _, c := range []struct {
		graph, communities string
		resolution         float64
		want               errkind.Kind
		wantNames          string
	}{
		{"karate", "leiden", 1, ok, ""},
		{"karate", "louvain", 2, ok, ""},
		{"karate", "file:c.csv", 0, ok, ""}, // read later; no resolution
		{"neo4j", "gds:leiden", 0.5, ok, ""},
		{"neo4j", "gds:louvain", 1, ok, ""},
		{"neo4j", "property:louvain", 0, ok, ""},

		{"karate", "leiden", 0, errkind.BadInput, "--resolution"},
		{"karate", "louvain", -1, errkind.BadInput, "--resolution"},
		{"karate", "leiden:fast", 1, errkind.Usage, `--communities must be leiden, louvain, gds:leiden, gds:louvain, property:NAME or file:PATH, got "leiden:fast"`},
		{"karate", "file:", 1, errkind.Usage, `got "file:"`},
		{"karate", "gds:leiden", 1, errkind.Usage, "--communities gds:leiden needs --graph neo4j"},
		{"neo4j", "gds:louvain", 2, errkind.Usage, "--resolution: gds:louvain has no resolution parameter"},
		{"neo4j", "gds:leiden", 0, errkind.BadInput, "--resolution"},
		{"neo4j", "gds:infomap", 1, errkind.Usage, "--communities"},
		{"karate", "property:louvain", 1, errkind.Usage, "--communities property:NAME needs --graph neo4j"},
		{"neo4j", "property:", 1, errkind.Usage, "--communities"},
		{"neo4j", "property:a`b", 1, errkind.BadInput, "--communities: \"a`b\" is not a valid property name"},
		{"karate", "spectral", 1, errkind.Usage, "--communities"},
	} {
		name := c.graph + " " + c.communities
		comm := parseCommunities(c.communities)
		comm.Resolution = c.resolution
		err := comm.Check(c.communities, c.graph == Neo4jSpec)
		switch {
		case c.want == ok && err != nil:
			t.Errorf("%s: %v, want accepted", name, err)
		case c.want == ok:
		case err == nil:
			t.Errorf("%s: accepted, want %v naming %s", name, c.want, c.wantNames)
		case errkind.Of(err) != c.want || !strings.Contains(errkind.Render(err, flags), c.wantNames):
			t.Errorf("%s: %v (%q), want %v naming %s", name, errkind.Of(err), errkind.Render(err, flags), c.want, c.wantNames)
		}
	}
}
