package job

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestReleasedSource: where a localisation's released values come from,
// on a graph in Neo4j or not: the property read, or the refusal with its
// kind and its sentence (parameters rendered as the command's flags).
func TestReleasedSource(t *testing.T) {
	flag := func(p errkind.Param) string {
		if f, ok := map[errkind.Param]string{ParamReleasedProperty: "--released-property", ParamReleaseRun: "--release-run"}[p]; ok {
			return f
		}
		return "--" + string(p)
	}
	for _, c := range []struct {
		name                string
		neo4j               bool
		file, property, run string
		sigma               float64
		want                string       // the property read
		kind                errkind.Kind // Internal: accepted
		msg                 string
	}{
		{name: "file outside Neo4j", file: "rel.json"},
		{name: "nothing outside Neo4j", kind: errkind.Usage, msg: "--release FILE is required for a graph outside Neo4j"},
		{name: "file and property", neo4j: true, file: "rel.json", property: "p", kind: errkind.Usage, msg: "give either --release FILE or --released-property P, not both"},
		{name: "property outside Neo4j", file: "rel.json", run: "r1", kind: errkind.Usage, msg: "--released-property and --release-run need --graph neo4j"},
		{name: "Neo4j default", neo4j: true, sigma: 0.5, want: "exposurePrivate"},
		{name: "Neo4j default without σ", neo4j: true, kind: errkind.Usage, msg: "released values from a property need their σ: give --sigma S (> 0) or --release-run RUNID"},
		{name: "property with σ", neo4j: true, property: "p", sigma: 2, want: "p"},
		{name: "property with infinite σ", neo4j: true, property: "p", sigma: math.Inf(1), kind: errkind.Usage, msg: "released values from a property need their σ: give --sigma S (> 0) or --release-run RUNID"},
		{name: "property of a run", neo4j: true, property: "p", run: "r1", want: "p"},
		{name: "run alone", neo4j: true, run: "r1"},
		{name: "file on Neo4j", neo4j: true, file: "rel.json"},
		{name: "bad property", neo4j: true, property: "a`b", sigma: 1, kind: errkind.BadInput, msg: "--released-property: \"a`b\" is not a valid property name"},
	} {
		err := CheckReleasedSource(c.neo4j, c.file, c.property, c.run)
		var got string
		if err == nil {
			got, err = ReleasedProperty(c.neo4j, c.file, c.property, c.run, c.sigma, "exposurePrivate")
		}
		if c.kind == errkind.Internal {
			if err != nil || got != c.want {
				t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted (%q), want %v", c.name, got, c.kind)
			continue
		}
		if k := errkind.Of(err); k != c.kind {
			t.Errorf("%s: kind %v, want %v", c.name, k, c.kind)
		}
		if m := errkind.Render(err, flag); m != c.msg {
			t.Errorf("%s: %q, want %q", c.name, m, c.msg)
		}
	}
}

// TestReadReleased: a missing or malformed release file is bad input
// named by its parameter.
func TestReadReleased(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "none.json"), bad} {
		_, err := ReadReleased(path)
		if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" }), "<release>: ") {
			t.Errorf("%s: %v, want bad input naming the release file", path, err)
		}
	}
}
