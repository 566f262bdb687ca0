package config

import "testing"

// Pattern: alternatives joined by |, * for no filter, the key when set.
func TestProjectionPattern(t *testing.T) {
	for _, c := range []struct {
		p    Projection
		want string
	}{
		{Projection{}, "(:*)-[:*]-"},
		{Projection{NodeLabels: []string{"Room", "Hall"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId"}, "(:Room|Hall)-[:DOOR]-, key roomId"},
		{Projection{RelationshipTypes: []string{"A", "B"}, RelationshipWeightProperty: "w"}, "(:*)-[:A|B]-"},
	} {
		if got := c.p.Pattern(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
