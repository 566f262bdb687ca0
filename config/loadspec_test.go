package config

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// LoadSpec is the load into the configured projection, its names checked
// before any file is read: graphcloak's own labels and readings that
// would overwrite the keys are refused as bad input, the latter naming
// the value property's parameter.
func TestLoadSpec(t *testing.T) {
	cfg := func(label, key, value string) *Config {
		c := &Config{}
		c.Projection = Projection{NodeLabels: []string{label}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: key,
			RelationshipWeightProperty: "conductance", ValueProperty: value}
		c.Write.BatchSize = 500
		return c
	}
	spec, err := cfg("Room", "roomId", "reading").LoadSpec()
	if err != nil || spec.Label != "Room" || spec.RelationshipType != "DOOR" || spec.KeyProperty != "roomId" ||
		spec.WeightProperty != "conductance" || spec.ValueProperty != "reading" || spec.BatchSize != 500 {
		t.Errorf("spec %+v, %v", spec, err)
	}
	for _, c := range []struct {
		name string
		cfg  *Config
		want string // in the message, the value property rendered as "V"
	}{
		{"no key", cfg("Room", "", ""), "node key property"},
		{"graphcloak's own label", cfg("GraphcloakRun", "roomId", ""), "GraphcloakRun"},
		{"readings over the keys", cfg("Room", "roomId", "roomId"), `V "roomId" is the node key property`},
	} {
		_, err := c.cfg.LoadSpec()
		if errkind.Of(err) != errkind.BadInput {
			t.Errorf("%s: %v (%s), want bad input", c.name, err, errkind.Of(err))
			continue
		}
		msg := errkind.Render(err, func(p errkind.Param) string {
			if p == connector.ParamValueProperty {
				return "V"
			}
			return string(p)
		})
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q does not say %q", c.name, msg, c.want)
		}
	}
}
