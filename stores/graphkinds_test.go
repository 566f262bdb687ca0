package stores

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/laplacian"
)

// The graph-kinds table is the whole of what a spec can name: every kind
// laplacian.ParseSpec reads has a row (and every generator is one of
// laplacian's), names are unique, every row with an example loads it
// (through LoadGraph, nothing opened) as its kind, a path row's spec
// names its file (PathOf) and, for file:, loads that CSV, and a spec of
// no kind is refused by the loader.
func TestGraphKindsTable(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, &config.Loaded{}, Options{}) // nothing opened
	if err != nil {
		t.Fatal(err)
	}
	var names, lap []string
	for _, k := range GraphKinds {
		if slices.Contains(names, k.Name) {
			t.Errorf("kind %s twice", k.Name)
		}
		names = append(names, k.Name)
		if k.laplacian {
			lap = append(lap, k.Name)
		}
		if k.Generator && !k.laplacian {
			t.Errorf("%s: a generator that is not laplacian's", k.Name)
		}
		if k.Syntax == "" || k.Complete == "" || k.About == "" || (k.load == nil) != k.Database {
			t.Errorf("%s: incomplete row %+v", k.Name, k)
		}
		if !strings.HasPrefix(k.Syntax, k.Complete) && !strings.HasPrefix(k.Complete, k.Syntax) {
			t.Errorf("%s: completion %q does not begin its syntax %q", k.Name, k.Complete, k.Syntax)
		}
		if got, ok := GraphKinds.Of(k.Syntax); !ok || got.Name != k.Name {
			t.Errorf("%s: its syntax %q is of kind %q", k.Name, k.Syntax, got.Name)
		}
		if k.Example == "" {
			continue
		}
		if got, ok := GraphKinds.Of(k.Example); !ok || got.Name != k.Name {
			t.Errorf("%s: example %q is of kind %q", k.Name, k.Example, got.Name)
		}
		lg, err := st.LoadGraph(ctx, k.Example, LoadOptions{})
		if err != nil || lg.Graph.N() == 0 {
			t.Errorf("%s: %s: %v", k.Name, k.Example, err)
		}
	}
	slices.Sort(lap)
	if want := laplacian.SpecKinds(); !slices.Equal(lap, want) {
		t.Errorf("laplacian's rows %v, laplacian reads %v", lap, want)
	}
	// A path kind: the spec's file, checked by the commands before they run, is the file loaded.
	path := filepath.Join(t.TempDir(), "edges.csv")
	if err := os.WriteFile(path, []byte("a,b\nb,c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range GraphKinds {
		if !k.Path {
			if p, ok := GraphKinds.PathOf(k.Syntax); ok {
				t.Errorf("%s names a path %q", k.Syntax, p)
			}
			continue
		}
		spec := k.Name + ":" + path
		if p, ok := GraphKinds.PathOf(spec); !ok || p != path {
			t.Errorf("PathOf(%q) = %q, %v", spec, p, ok)
		}
		if !k.laplacian { // a source of its own format: its loader's tests read it
			continue
		}
		if lg, err := st.LoadGraph(ctx, spec, LoadOptions{}); err != nil || lg.Graph.N() != 3 {
			t.Errorf("%s: %v", spec, err)
		}
	}
	for _, spec := range []string{"nosuchkind:x=1", "gt", "neo4j:x"} {
		if _, ok := GraphKinds.Of(spec); ok {
			t.Errorf("%q has a kind", spec)
		}
		if _, err := st.LoadGraph(ctx, spec, LoadOptions{}); err == nil {
			t.Errorf("%q loaded", spec)
		}
	}
}
