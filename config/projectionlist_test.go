package config

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// ListProjections lists a file's projections sorted by name, or the one
// named; a missing file lists none (an empty list, not null), and a name
// not saved is bad input naming the file.
func TestListProjections(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	if l, err := ListProjections(file, ""); err != nil || l.File != file || l.Projections == nil || len(l.Projections) != 0 {
		t.Fatalf("no file: %+v, %v", l, err)
	}
	for _, name := range []string{"rooms", "halls", "floors"} {
		if err := SaveProjection(file, name, NamedProjection{NodeLabels: []string{strings.ToUpper(name)}, NodeKeyProperty: "id"}, false); err != nil {
			t.Fatal(err)
		}
	}
	l, err := ListProjections(file, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Projections {
		names = append(names, p.Name)
		if p.NodeLabels[0] != strings.ToUpper(p.Name) {
			t.Errorf("%s lists the projection %+v", p.Name, p.NamedProjection)
		}
	}
	if strings.Join(names, " ") != "floors halls rooms" {
		t.Errorf("listed %v, want sorted by name", names)
	}
	if l, err := ListProjections(file, "halls"); err != nil || len(l.Projections) != 1 || l.Projections[0].Name != "halls" {
		t.Errorf("only halls: %+v, %v", l, err)
	}
	_, err = ListProjections(file, "attic")
	if errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), `no projection named "attic" in `+file) {
		t.Errorf("unsaved name: %v (%v)", err, errkind.Of(err))
	}
}

// WriteText: a header and one row per projection, the defaults spelt out
// for what a projection leaves unset; a sentence naming the file when
// there is none.
func TestProjectionListText(t *testing.T) {
	l := &ProjectionList{File: "c.yaml", Projections: []ListedProjection{
		{Name: "rooms", NamedProjection: NamedProjection{NodeLabels: []string{"Room", "Hall"}, RelationshipTypes: []string{"DOOR"}, RelationshipWeightProperty: "conductance", NodeKeyProperty: "roomId"}},
		{Name: "all"},
	}}
	var b bytes.Buffer
	if err := l.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := [][]string{
		{"NAME", "NODE", "LABELS", "RELATIONSHIP", "TYPES", "WEIGHT", "PROPERTY", "KEY", "PROPERTY"},
		{"rooms", "Room,Hall", "DOOR", "conductance", "roomId"},
		{"all", "*", "*", "(weight", "1)", "(elementId)"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want %q", i, got, w)
		}
	}
	b.Reset()
	if err := (&ProjectionList{File: "c.yaml"}).WriteText(&b); err != nil || b.String() != "no projections saved in c.yaml\n" {
		t.Errorf("empty list: %q, %v", b.String(), err)
	}
}
