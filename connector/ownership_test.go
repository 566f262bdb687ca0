package connector

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// TestOwnershipRefused: every projection and every load naming one of
// graphcloak's own labels (or a name in its namespace) as a label or a
// relationship type is refused by the one check, before any query, as
// bad input naming the bookkeeping.
func TestOwnershipRefused(t *testing.T) {
	names := append(append([]string(nil), BookkeepingLabels...), ReservedPrefix+"Anything")
	for _, name := range names {
		for i, p := range []Projection{
			{NodeLabels: []string{name}},
			{NodeLabels: []string{"Room", name}},
			{NodeLabels: []string{"Room"}, RelationshipTypes: []string{name}},
		} {
			var oe *OwnedLabelError
			err := p.Validate()
			if !errors.As(err, &oe) || errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), "graphcloak's own bookkeeping") {
				t.Errorf("%s case %d: Validate = %v, want *OwnedLabelError (bad input)", name, i, err)
			}
		}
		for i, s := range []LoadSpec{
			{Label: name, RelationshipType: "DOOR", KeyProperty: "k"},
			{Label: "Room", RelationshipType: name, KeyProperty: "k"},
		} {
			var oe *OwnedLabelError
			if err := s.Validate(); !errors.As(err, &oe) {
				t.Errorf("%s load case %d: Validate = %v, want *OwnedLabelError", name, i, err)
			}
		}
	}
	// The user's names, and names that only resemble graphcloak's, pass.
	for _, name := range []string{"Room", "graphcloakLedger", "MyGraphcloakRun", "Ledger"} {
		if err := (Projection{NodeLabels: []string{name}}).Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := (LoadSpec{Label: "Room", RelationshipType: "DOOR", KeyProperty: "roomId"}).Validate(); err != nil {
		t.Errorf("a plain load spec: %v", err)
	}
}
