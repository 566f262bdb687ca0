package config

import (
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// LoadSpec is a load of CSV files into the configured projection
// (connector.Client.Load): its first label and relationship type, its key,
// weight and value properties, the configured batch size; its names
// checked (graphcloak's own labels refused, connector.LoadSpec.Validate)
// and readings that would overwrite the keys refused, all bad input. The
// caller checks first that the projection names one label and one type.
func (c *Config) LoadSpec() (connector.LoadSpec, error) {
	p := c.Projection
	spec := connector.LoadSpec{Label: p.NodeLabels[0], RelationshipType: p.RelationshipTypes[0],
		KeyProperty: p.NodeKeyProperty, WeightProperty: p.RelationshipWeightProperty, ValueProperty: p.ValueProperty,
		BatchSize: c.Write.BatchSize}
	if err := spec.Validate(); err != nil {
		return connector.LoadSpec{}, errkind.Input(err)
	}
	if p.ValueProperty != "" && (p.ValueProperty == p.NodeKeyProperty) {
		return connector.LoadSpec{}, errkind.Inputf("%s %q is the node key property: the readings would overwrite the keys", connector.ParamValueProperty, p.ValueProperty)
	}
	return spec, nil
}
