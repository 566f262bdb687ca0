package config

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// The community write property is a valid name that the projection does
// not read (the node key).
func TestCheckCommunityWrite(t *testing.T) {
	for _, c := range []struct {
		property string
		refused  string // in the message; "" accepted
	}{
		{"community", ""},
		{"graphcloak_community", ""},
		{"a`b", "is not a valid property name"},
		{"", "is not a valid property name"},
		{"roomId", `"roomId"`},
	} {
		cfg := &Config{}
		cfg.Projection = Projection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId", RelationshipWeightProperty: "conductance"}
		cfg.Write.CommunityWriteProperty = c.property
		err := cfg.CheckCommunityWrite()
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%q: %v", c.property, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || errkind.Of(err) != errkind.BadInput):
			t.Errorf("%q: %v (%s), want bad input saying %s", c.property, err, errkind.Of(err), c.refused)
		}
	}
}
