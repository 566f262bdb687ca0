package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestNamedProjection: a saved projection sets the four projection keys
// for --projection NAME; a flag that agrees is accepted, one that
// contradicts it is refused naming the flag; the rest of the file and its
// comments survive save and drop (the flags had to be
// retyped on every command).
func TestNamedProjection(t *testing.T) {
	isolate(t)
	file := filepath.Join(t.TempDir(), "config.yaml")
	head := "# the operator's settings\nprivacy:\n  scope: building-7 # the budget\n"
	if err := os.WriteFile(file, []byte(head), 0o600); err != nil {
		t.Fatal(err)
	}
	rooms := NamedProjection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"},
		RelationshipWeightProperty: "conductance", NodeKeyProperty: "roomId"}
	if err := SaveProjection(file, "rooms", rooms, false); err != nil {
		t.Fatal(err)
	}
	if err := SaveProjection(file, "rooms", NamedProjection{}, false); err == nil {
		t.Fatal("a second save of rooms without replace was accepted")
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "# the operator's settings") || !strings.Contains(string(data), "# the budget") {
		t.Errorf("save lost the file's comments:\n%s", data)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after save, want 0600", st.Mode().Perm())
	}

	l, err := Load(Options{File: file, Flags: flags(t, "--projection", "rooms", "--node-labels", "Room")})
	if err != nil {
		t.Fatal(err)
	}
	got := NamedProjection{NodeLabels: l.Projection.NodeLabels, RelationshipTypes: l.Projection.RelationshipTypes,
		RelationshipWeightProperty: l.Projection.RelationshipWeightProperty, NodeKeyProperty: l.Projection.NodeKeyProperty}
	if !reflect.DeepEqual(got, rooms) || l.Privacy.Scope != "building-7" {
		t.Fatalf("--projection rooms gave %+v (scope %q), want %+v", got, l.Privacy.Scope, rooms)
	}
	if !l.ProjectionGiven() {
		t.Error("ProjectionGiven false with --projection")
	}

	_, err = Load(Options{File: file, Flags: flags(t, "--projection", "rooms", "--relationship-weight-property", "length")})
	if err == nil || !strings.Contains(err.Error(), "--relationship-weight-property") || !strings.Contains(err.Error(), "conductance") {
		t.Errorf("contradicting flag: %v, want an error naming the flag and the saved value", err)
	}
	_, err = Load(Options{File: file, Flags: flags(t, "--projection", "hall")})
	if err == nil || !strings.Contains(err.Error(), "rooms") {
		t.Errorf("unknown projection: %v, want an error listing the saved ones", err)
	}

	if err := DropProjection(file, "rooms"); err != nil {
		t.Fatal(err)
	}
	if all, err := ReadProjections(file); err != nil || len(all) != 0 {
		t.Errorf("after drop: %v, %v", all, err)
	}
	if err := DropProjection(file, "rooms"); err == nil {
		t.Error("dropping a missing projection succeeded")
	}
	l, err = Load(Options{File: file, Flags: flags(t)})
	if err != nil || l.ProjectionGiven() {
		t.Errorf("no projection given: %v, given %v", err, l != nil && l.ProjectionGiven())
	}
}

// TestProjectionDiff names exactly the flags that differ.
func TestProjectionDiff(t *testing.T) {
	a := NamedProjection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId"}
	b := a
	b.RelationshipWeightProperty = "conductance"
	d := ProjectionDiff(a, b)
	if len(d) != 1 || !strings.HasPrefix(d[0], "--relationship-weight-property") || !strings.Contains(d[0], "conductance") {
		t.Errorf("diff = %q, want only --relationship-weight-property", d)
	}
	if d := ProjectionDiff(a, a); len(d) != 0 {
		t.Errorf("diff of equal projections = %q", d)
	}
}
