package config

import (
	"slices"
	"testing"
)

// The four choices are saved as given; a name the connector would refuse
// to read is refused before anything is saved.
func TestProjectionNamed(t *testing.T) {
	p := Projection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, RelationshipWeightProperty: "conductance",
		NodeKeyProperty: "roomId", ValueProperty: "reading"}
	np, err := p.Named()
	if err != nil || !slices.Equal(np.NodeLabels, p.NodeLabels) || !slices.Equal(np.RelationshipTypes, p.RelationshipTypes) ||
		np.RelationshipWeightProperty != "conductance" || np.NodeKeyProperty != "roomId" {
		t.Errorf("%+v, %v", np, err)
	}
	for _, bad := range []Projection{
		{NodeLabels: []string{"Room`x"}, RelationshipTypes: []string{"DOOR"}},
		{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "a b`"},
		{NodeLabels: []string{"GraphcloakRun"}, RelationshipTypes: []string{"DOOR"}},
	} {
		if _, err := bad.Named(); err == nil {
			t.Errorf("%+v saved", bad)
		}
	}
}
