package stores

import (
	"slices"
	"strings"
	"testing"
)

// TestGraphKindsDescribed: help names every kind of the table (a
// generator with parameters as "name:…", any other kind by its syntax and
// what it is), the database first; generatorsOnly names the generators and
// nothing else; completion offers what keep accepts, in the table's
// order; the path kind is the one PathOf reads.
func TestGraphKindsDescribed(t *testing.T) {
	all, gens := GraphKinds.Describe(false), GraphKinds.Describe(true)
	if !strings.HasPrefix(all, Neo4jSpec+" (") || !strings.HasPrefix(gens, "a generator (") || !strings.Contains(all, gens) {
		t.Errorf("Describe: %q / %q", all, gens)
	}
	var want []string
	for _, k := range GraphKinds {
		token := k.Syntax + " (" + k.About + ")"
		switch {
		case k.Generator && k.Syntax == k.Name:
			token = k.Name
		case k.Generator:
			token = k.Name + ":…"
		}
		if !strings.Contains(all, token) {
			t.Errorf("Describe(false) %q does not name %s", all, k.Name)
		}
		if strings.Contains(gens, token) != k.Generator {
			t.Errorf("Describe(true) %q: %s named %v, a generator %v", gens, k.Name, strings.Contains(gens, token), k.Generator)
		}
		if k.Database {
			want = append(want, k.Complete)
		}
	}
	if got := GraphKinds.Completions(func(k GraphKind) bool { return k.Database }); !slices.Equal(got, want) {
		t.Errorf("the database's completions %q, want %q", got, want)
	}
	if got := GraphKinds.Completions(func(GraphKind) bool { return true }); len(got) != len(GraphKinds) || got[0] != GraphKinds[0].Complete {
		t.Errorf("every completion: %q", got)
	}
	pk := GraphKinds.PathKind()
	if p, ok := GraphKinds.PathOf(pk.Name + ":edges.csv"); !pk.Path || !ok || p != "edges.csv" {
		t.Errorf("PathKind %+v: PathOf gives %q, %v", pk, p, ok)
	}
}
