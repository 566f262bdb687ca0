package inputfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

func TestReadLoadFiles(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "edges.csv")
	values := filepath.Join(dir, "values.csv")
	if err := os.WriteFile(edges, []byte("source,target\na,b\nb,c\nb,a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte("a,1\nb,3\nc,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lf, err := ReadLoadFiles(nil, edges, values, "auto", laplacian.DuplicatesMerge)
	if err != nil {
		t.Fatal(err)
	}
	if len(lf.Edges) != 2 || lf.DuplicatesMerged != 1 || lf.Values["c"] != 2 {
		t.Errorf("edges %v, merged %d, values %v", lf.Edges, lf.DuplicatesMerged, lf.Values)
	}
	for _, e := range lf.Edges { // a–b listed both ways is one relationship of weight 1
		if e.Weight != 1 {
			t.Errorf("edge %v: weight %v, want 1", e, e.Weight)
		}
	}
	if got, want := lf.KeyLine("c"), " (line 3 of "+edges+")"; got != want {
		t.Errorf("KeyLine(c) = %q, want %q", got, want)
	}
	if got := lf.KeyLine("z"); got != "" {
		t.Errorf("KeyLine(z) = %q, want none", got)
	}
	_, err = ReadLoadFiles(nil, filepath.Join(dir, "missing.csv"), "", "auto", laplacian.DuplicatesMerge)
	if err == nil || errkind.Of(err) != errkind.BadInput {
		t.Fatalf("a missing edge list: %v (kind %v), want bad input", err, errkind.Of(err))
	}
	if msg := errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }); !strings.HasPrefix(msg, "--edges: ") {
		t.Errorf("the error names %q, want the edges parameter first", msg)
	}
}

// An edge list mixing integer and string keys is refused while the files
// are read — before any connection — by the rule the file graph applies
// (laplacian.CheckKeyTypes), in load's words (connector.LoadKeyError)
// with the line the key first appears on.
func TestReadLoadFilesMixedKeys(t *testing.T) {
	edges := filepath.Join(t.TempDir(), "edges.csv")
	if err := os.WriteFile(edges, []byte("source,target\n401,402\n402,hall\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadLoadFiles(nil, edges, "", "auto", laplacian.DuplicatesMerge)
	var ke *connector.LoadKeyError
	if !errors.As(err, &ke) || ke.Key != "hall" || errkind.Of(err) != errkind.BadInput ||
		!strings.Contains(err.Error(), "(line 3 of "+edges+")") || !strings.Contains(err.Error(), `"401", the first key, is an integer`) {
		t.Errorf("got %v, want node key \"hall\" refused on line 3", err)
	}
}
