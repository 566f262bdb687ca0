package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectionCommands: a projection saved once is what --projection
// NAME reads on another command (config show prints the effective
// projection); list and show print it, drop removes it, and a name that
// is not saved is refused with exit 3 (the four
// projection flags had to be retyped on every command).
func TestProjectionCommands(t *testing.T) {
	isolateConfig(t)
	run := func(args ...string) (string, string, int) {
		var out, errb strings.Builder
		code := runArgs(context.Background(), args, &out, &errb)
		return out.String(), errb.String(), code
	}
	if _, e, code := run("projection", "save", "rooms", "--node-labels", "Room", "--relationship-types", "DOOR",
		"--relationship-weight-property", "conductance", "--node-key-property", "roomId"); code != 0 {
		t.Fatalf("save: exit %d: %s", code, e)
	}
	out, e, code := run("config", "show", "--projection", "rooms", "-o", "json")
	if code != 0 {
		t.Fatalf("config show --projection rooms: exit %d: %s", code, e)
	}
	var shown struct {
		Config struct {
			Projection struct {
				NodeLabels                 []string
				RelationshipWeightProperty string
				NodeKeyProperty            string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err)
	}
	p := shown.Config.Projection
	if strings.Join(p.NodeLabels, ",") != "Room" || p.RelationshipWeightProperty != "conductance" || p.NodeKeyProperty != "roomId" {
		t.Errorf("--projection rooms gave %+v", p)
	}
	if _, e, code := run("config", "show", "--projection", "rooms", "--node-key-property", "id"); code != 3 || !strings.Contains(e, "--node-key-property") {
		t.Errorf("contradicting --node-key-property: exit %d, %s; want 3 naming the flag", code, e)
	}
	if out, _, code := run("projection", "list"); code != 0 || !strings.Contains(out, "rooms") || !strings.Contains(out, "conductance") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	if out, _, code := run("projection", "show", "rooms"); code != 0 || !strings.Contains(out, "roomId") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	if _, _, code := run("projection", "drop", "rooms"); code != 0 {
		t.Errorf("drop: exit %d", code)
	}
	if _, e, code := run("projection", "show", "rooms"); code != 3 {
		t.Errorf("show after drop: exit %d, %s; want 3", code, e)
	}
	if _, e, code := run("config", "show", "--projection", "rooms"); code == 0 || !strings.Contains(e, "rooms") {
		t.Errorf("--projection of a dropped name: exit %d, %s", code, e)
	}
	// The jobs' own config file (docs/scheduling.md): save creates it.
	jobs := filepath.Join(t.TempDir(), "etc", "graphcloak", "config.yaml")
	if _, e, code := run("projection", "save", "rooms", "--config", jobs, "--node-labels", "Room"); code != 0 {
		t.Errorf("save into a new --config file: exit %d: %s", code, e)
	}
	if out, e, code := run("config", "show", "--config", jobs, "--projection", "rooms"); code != 0 || !strings.Contains(out, "Room") {
		t.Errorf("--config %s --projection rooms: exit %d: %s%s", jobs, code, out, e)
	}
}
