package main

import (
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

func TestCheckLoadFlags(t *testing.T) {
	ok := config.Projection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId"}
	withValue := ok
	withValue.ValueProperty = "reading"
	for _, c := range []struct {
		name          string
		edges, values string
		p             config.Projection
		wantExit      int
	}{
		{"edges and projection", "e.csv", "", ok, exitOK},
		{"readings with their property", "e.csv", "v.csv", withValue, exitOK},
		{"no edges", "", "", ok, exitUsage},
		{"both from stdin", "-", "-", withValue, exitUsage},
		{"two labels", "e.csv", "", config.Projection{NodeLabels: []string{"A", "B"}, RelationshipTypes: []string{"D"}, NodeKeyProperty: "k"}, exitUsage},
		{"no key", "e.csv", "", config.Projection{NodeLabels: []string{"A"}, RelationshipTypes: []string{"D"}}, exitUsage},
		{"readings without a property", "e.csv", "v.csv", ok, exitUsage},
		{"a property without readings", "e.csv", "", withValue, exitUsage},
	} {
		err := checkLoadFlags(&loadOptionsCmd{edges: c.edges, values: c.values}, c.p)
		if got := exitCode(err); got != c.wantExit {
			t.Errorf("%s: exit %d (%v), want %d", c.name, got, err, c.wantExit)
		}
	}
}
