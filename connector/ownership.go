package connector

import (
	"fmt"
	"strings"
)

// ReservedPrefix begins the name of every label (and relationship type)
// graphcloak keeps its own books under. Names with this prefix are
// graphcloak's namespace: no command reads them as a user graph or writes
// into them, whichever labels a user names (CheckOwnership).
const ReservedPrefix = "Graphcloak"

// BookkeepingLabels are the labels of graphcloak's own nodes (run
// records, the ledger and its charges, stored release values, scope
// leases, the output registry): never part of a user graph, never read as
// one, never written to by a write-back or a load. Every projection's node
// pattern leaves them out (nodeMatch), even under a user's label.
var BookkeepingLabels = []string{RunRecordLabel, LedgerLabel, ChargeLabel, ValuesLabel, ScopeLeaseLabel, OutputLabel}

// bookkeepingRole names what each bookkeeping label holds, for refusals.
var bookkeepingRole = map[string]string{
	RunRecordLabel:  "run records",
	LedgerLabel:     "the privacy ledger",
	ChargeLabel:     "the ledger's charges",
	ValuesLabel:     "stored release values",
	ScopeLeaseLabel: "scope leases",
	OutputLabel:     "the output registry",
}

// OwnedLabelError reports a label or relationship type a user named that
// is graphcloak's own bookkeeping (or in its reserved namespace).
type OwnedLabelError struct {
	What string // "label", "relationship type"
	Name string
}

func (e *OwnedLabelError) Error() string {
	role := bookkeepingRole[e.Name]
	if role == "" {
		role = "the " + ReservedPrefix + "* names are reserved for graphcloak's bookkeeping"
	}
	return fmt.Sprintf("connector: %s %q is graphcloak's own bookkeeping (%s): no command reads it as a graph or writes into it; name your graph's own %ss",
		e.What, e.Name, role, e.What)
}

func (*OwnedLabelError) connectorError() {}

// CheckOwnership is the one ownership check of every projection and every
// write (Projection.compile, Load): it refuses a label or relationship type
// in graphcloak's namespace (ReservedPrefix, which holds every
// BookkeepingLabels entry) with *OwnedLabelError. kind is "label" or
// "relationship type".
func CheckOwnership(kind string, names ...string) error {
	for _, n := range names {
		if strings.HasPrefix(n, ReservedPrefix) {
			return &OwnedLabelError{What: kind, Name: n}
		}
	}
	return nil
}

// notBookkeeping is the Cypher predicate "variable v is none of
// graphcloak's bookkeeping nodes": NOT v:`GraphcloakRun`|….
func notBookkeeping(v string) string {
	return "NOT " + v + ":`" + strings.Join(BookkeepingLabels, "`|`") + "`"
}

// quoteUser is Quote for a user's label or relationship type: the
// identifier rule, then the ownership check.
func quoteUser(kind, name string) (string, error) {
	q, err := Quote(kind, name)
	if err != nil {
		return "", err
	}
	if err := CheckOwnership(kind, name); err != nil {
		return "", err
	}
	return q, nil
}
