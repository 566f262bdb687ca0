package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestLibraryErrorsNameFlags: errors of laplacian and connector that name
// parameters, shown as the command shows every error, name the flags a
// user types, in the words they had when the library wrote the flags
// itself.
func TestLibraryErrorsNameFlags(t *testing.T) {
	_, csvErr := laplacian.ReadCSV(strings.NewReader("x,y\n1,2\n2,3\n"), laplacian.Options{})
	if !errors.Is(csvErr, laplacian.ErrCSVHeader) {
		t.Fatalf("a header of unknown names: %v, want ErrCSVHeader", csvErr)
	}
	conflict := func(p connector.Projection, name string) error {
		return connector.CheckOutputs(connector.ReadProperties(p, nil), map[string]string{"--write-property": name}, nil)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{csvErr, "(use source,target[,weight], or --header yes to skip it, --header no to read it as an edge)"},
		{&connector.GDSMissingError{Database: "neo4j"}, `Neo4j Graph Data Science is not installed on database "neo4j" (no gds.graph.project procedure): install the GDS plugin, or detect communities with graphcloak (--communities leiden)`},
		{conflict(connector.Projection{NodeKeyProperty: "k"}, "k"), `--write-property "k" is the node key property (--node-key-property): writing it would overwrite them`},
		{conflict(connector.Projection{ValueProperty: "v"}, "v"), `--write-property "v" is the raw readings (--value-property): writing it`},
		{conflict(connector.Projection{CommunityProperty: "c"}, "c"), `--write-property "c" is the communities read (--communities property:…): writing it`},
	} {
		if c.err == nil {
			t.Fatalf("no error where %q was expected", c.want)
		}
		if got := flagText(c.err); !strings.Contains(got, c.want) {
			t.Errorf("shown as %q\nwant it to contain %q", got, c.want)
		}
		// The caller's own output key (here the flag cmd passes) aside.
		if own := strings.ReplaceAll(c.err.Error(), "--write-property", ""); strings.Contains(own, "--") {
			t.Errorf("the library's own text names a flag: %q", own)
		}
	}
}
