package community

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

func TestFromAssignment(t *testing.T) {
	g, _ := laplacian.Path(4) // keys "0".."3"
	part, names, err := FromAssignment(g, map[string]string{"0": "b", "1": "a", "2": "b", "3": "a", "99": "z"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(part, []int{0, 1, 0, 1}) || !slices.Equal(names, []string{"b", "a"}) {
		t.Errorf("got %v %v", part, names)
	}
	_, _, err = FromAssignment(g, map[string]string{"0": "a", "2": "a"})
	var miss *MissingNodesError
	if !errors.As(err, &miss) || miss.Count != 2 || !slices.Equal(miss.Missing, []string{"1", "3"}) {
		t.Fatalf("missing nodes: %v", err)
	}
	if !strings.Contains(err.Error(), `"1"`) || !strings.Contains(err.Error(), `"3"`) {
		t.Errorf("error does not name the missing nodes: %v", err)
	}
}

// TestFromAssignmentNamesByTheOneRule: a partition read from a map (a
// file, a Neo4j property, GDS) is numbered by the one rule — in order of
// each community's first node in key order, integer keys as numbers — not
// in the order the graph's nodes were read; names follow their
// communities. The oracle walks the keys sorted as numbers.
func TestFromAssignmentNamesByTheOneRule(t *testing.T) {
	keys := []string{"10", "9", "2", "30", "4"} // read order; key order 2, 4, 9, 10, 30
	g, err := laplacian.FromEdges(len(keys), keys, []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 1, V: 2, Weight: 1}, {U: 2, V: 3, Weight: 1}, {U: 3, V: 4, Weight: 1}}, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]string{"10": "x", "9": "y", "2": "z", "30": "x", "4": "y"}
	part, names, err := FromAssignment(g, byKey)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{} // name → its number by the keys' numeric order
	for _, k := range []string{"2", "4", "9", "10", "30"} {
		if _, ok := want[byKey[k]]; !ok {
			want[byKey[k]] = len(want)
		}
	}
	for i, k := range keys {
		if c := part[i]; c != want[byKey[k]] || names[c] != byKey[k] {
			t.Errorf("node %s: community %d named %q; want %d named %q", k, c, names[c], want[byKey[k]], byKey[k])
		}
	}
}

func TestReadAssignment(t *testing.T) {
	cases := []struct {
		name, in string
		want     map[string]string
		bad      bool
	}{
		{"header", "node,community\n1,x\n2, y\n", map[string]string{"1": "x", "2": "y"}, false},
		{"no header, comments", "# c\n1,x\n1,x\n", map[string]string{"1": "x"}, false},
		{"conflict", "1,x\n1,y\n", nil, true},
		{"three fields", "1,x,z\n", nil, true},
		{"empty community", "1,\n", nil, true},
		{"bad quote", "1,\"x\n", nil, true},
	}
	for _, c := range cases {
		got, err := ReadAssignment(strings.NewReader(c.in))
		if c.bad {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Errorf("%s: want ParseError with a line, got %v", c.name, err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%s: got %v, %v", c.name, got, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s → %q, want %q", c.name, k, got[k], v)
			}
		}
	}
}

func TestLoadAssignmentKarate(t *testing.T) {
	g, faction := laplacian.Karate()
	var b strings.Builder
	b.WriteString("node,faction\n")
	for i := 0; i < g.N(); i++ {
		b.WriteString(g.Key(i) + "," + []string{"hi", "officer"}[faction[i]] + "\n")
	}
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	part, names, err := LoadAssignment(path, g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(part, faction) || !slices.Equal(names, []string{"hi", "officer"}) {
		t.Errorf("got %v %v", part, names)
	}
	if err := os.WriteFile(path, []byte("1,x\n1,y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadAssignment(path, g)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Path != path || pe.Line != 2 {
		t.Errorf("want ParseError at %s line 2, got %v", path, err)
	}
}

func FuzzReadAssignment(f *testing.F) {
	f.Add("node,community\n1,a\n2,b\n")
	f.Add("1,a\n1,b\n")
	f.Add("\"x\"\"y\",z\n#c\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ReadAssignment(strings.NewReader(in))
		if err != nil {
			return
		}
		for k, v := range m {
			if k == "" || v == "" {
				t.Fatalf("accepted empty key or community: %q → %q", k, v)
			}
		}
	})
}

// A communities file naming a node the graph lacks is refused, naming the
// keys (sorted, the first ten) and the file: before, the row was
// ignored and a private answer was charged on the rest.
func TestLoadAssignmentRefusesUnknownNodes(t *testing.T) {
	g, _ := laplacian.Path(3) // keys "0".."2"
	path := filepath.Join(t.TempDir(), "c.csv")
	var b strings.Builder
	b.WriteString("node,community\n0,a\n1,a\n2,b\n")
	for i := 0; i < 12; i++ {
		b.WriteString("x" + string(rune('a'+i)) + ",z\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadAssignment(path, g)
	var un *UnknownNodesError
	if !errors.As(err, &un) || un.Count != 12 || len(un.Unknown) != 10 || un.Unknown[0] != "xa" || un.Path != path {
		t.Fatalf("want 12 unknown nodes named from xa, got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, `"xa"`) || !strings.Contains(msg, "2 more") {
		t.Errorf("message does not name the file, the keys and the rest: %s", msg)
	}
	// The same rows without the strays load.
	if err := os.WriteFile(path, []byte("0,a\n1,a\n2,b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if part, _, err := LoadAssignment(path, g); err != nil || !slices.Equal(part, []int{0, 0, 1}) {
		t.Errorf("got %v, %v", part, err)
	}
}
