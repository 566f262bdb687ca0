package config

import "github.com/graphcloak/graphcloak/connector"

// Neo4jProjection is the configured projection as the connector reads and
// writes it: node labels, relationship types, the weight and key
// properties, in the configured database (no value or community property:
// a job names the ones it reads).
func (c *Config) Neo4jProjection() connector.Projection {
	return connector.Projection{
		NodeLabels:                 c.Projection.NodeLabels,
		RelationshipTypes:          c.Projection.RelationshipTypes,
		RelationshipWeightProperty: c.Projection.RelationshipWeightProperty,
		NodeKeyProperty:            c.Projection.NodeKeyProperty,
		Database:                   c.Neo4j.Database,
	}
}
