package stores

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// CheckProjection checks the community property named beside the
// configured projection, before anything is connected: a name the
// connector would refuse is refused by Open.
func TestOpenChecksCommunityProperty(t *testing.T) {
	cfg := &config.Loaded{}
	cfg.Projection = config.Projection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId"}
	for _, c := range []struct {
		property string
		ok       bool
	}{{"", true}, {"community", true}, {"comm`unity", false}} {
		st, err := Open(context.Background(), cfg, Options{CheckProjection: true, CommunityProperty: c.property})
		if (err == nil) != c.ok {
			t.Errorf("community property %q: %v", c.property, err)
		}
		if st != nil {
			st.Close(context.Background())
		}
	}
}
