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

// loadSpec is the load into the configured projection, its names checked
// before any file is read: graphcloak's own labels and readings that
// would overwrite the keys are refused as bad input.
func TestLoadSpec(t *testing.T) {
	cfg := func(label, key, value string) *config.Config {
		c := &config.Config{}
		c.Projection = config.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: key,
			RelationshipWeightProperty: "conductance", ValueProperty: value}
		c.Write.BatchSize = 500
		return c
	}
	spec, err := loadSpec(&loadOptionsCmd{edges: "e.csv", values: "v.csv"}, cfg("Room", "roomId", "reading"))
	if err != nil || spec.Label != "Room" || spec.RelationshipType != "DOOR" || spec.KeyProperty != "roomId" ||
		spec.WeightProperty != "conductance" || spec.ValueProperty != "reading" || spec.BatchSize != 500 {
		t.Errorf("spec %+v, %v", spec, err)
	}
	for _, c := range []struct {
		name     string
		cfg      *config.Config
		values   string
		wantExit int
	}{
		{"no key", cfg("Room", "", ""), "", exitUsage},
		{"graphcloak's own label", cfg("GraphcloakRun", "roomId", ""), "", exitBadInput},
		{"readings over the keys", cfg("Room", "roomId", "roomId"), "v.csv", exitBadInput},
	} {
		_, err := loadSpec(&loadOptionsCmd{edges: "e.csv", values: c.values}, c.cfg)
		if got := exitCode(err); got != c.wantExit {
			t.Errorf("%s: exit %d (%v), want %d", c.name, got, err, c.wantExit)
		}
	}
}
