package config

import "strings"

// Pattern describes p in one line, as a Cypher-like pattern:
// "(:Room|Hall)-[:DOOR]-, key roomId", "*" for no filter.
func (p Projection) Pattern() string {
	alt := func(names []string) string {
		if len(names) == 0 {
			return "*"
		}
		return strings.Join(names, "|")
	}
	s := "(:" + alt(p.NodeLabels) + ")-[:" + alt(p.RelationshipTypes) + "]-"
	if p.NodeKeyProperty != "" {
		s += ", key " + p.NodeKeyProperty
	}
	return s
}
