package config

import "github.com/graphcloak/graphcloak/connector"

// Named is the projection's four choices as a projection to save under a
// name (SaveProjection), its names checked as the connector checks a
// projection it reads (connector.Projection.Validate).
func (p Projection) Named() (NamedProjection, error) {
	np := NamedProjection{NodeLabels: p.NodeLabels, RelationshipTypes: p.RelationshipTypes,
		RelationshipWeightProperty: p.RelationshipWeightProperty, NodeKeyProperty: p.NodeKeyProperty}
	cp := connector.Projection{NodeLabels: np.NodeLabels, RelationshipTypes: np.RelationshipTypes,
		RelationshipWeightProperty: np.RelationshipWeightProperty, NodeKeyProperty: np.NodeKeyProperty}
	if err := cp.Validate(); err != nil {
		return NamedProjection{}, err
	}
	return np, nil
}
