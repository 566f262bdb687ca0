package config

import (
	"fmt"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// CheckCommunityWrite refuses the configured community write property
// (--community-write-property) when it is not a valid property name (bad
// input) or names a property the configured projection reads — a node
// key, the readings, the communities — which writing would overwrite
// (connector.CheckOutputs).
func (c *Config) CheckCommunityWrite() error {
	p := c.Write.CommunityWriteProperty
	if !ValidIdentifier(p) {
		return errkind.Input(fmt.Errorf("--community-write-property: %q is not a valid property name", p))
	}
	return connector.CheckOutputs(connector.ReadProperties(c.Neo4jProjection(), nil),
		map[string]string{"--community-write-property": p}, nil)
}
