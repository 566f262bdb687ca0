package privacy

// LedgerReport is a ledger's budget and its scopes' balances, as the
// budget listing shows them.
type LedgerReport struct {
	Ledger string `json:"ledger"` // the ledger's file, or neo4j
	// Budget and RhoBudget are the budget of every scope and its ρ_max:
	// a file ledger's own, or a Neo4j ledger's when every scope has the
	// same (nil: they differ, or there is no scope).
	Budget     *Budget   `json:"budget,omitempty"`
	RhoBudget  float64   `json:"rhoBudget,omitempty"`
	Accounting string    `json:"accounting"`
	Scopes     []Balance `json:"scopes"`
}

// NewLedgerReport is the report of ledger l, named name, with the
// balances bal it gave.
func NewLedgerReport(name string, l Ledger, bal []Balance) LedgerReport {
	r := LedgerReport{Ledger: name, Accounting: AccountingCKS20, Scopes: bal}
	if fl, ok := l.(*FileLedger); ok {
		b, rho := fl.Budget()
		r.Budget, r.RhoBudget = &b, rho
	} else if sharedBudget(bal) {
		r.Budget, r.RhoBudget = &bal[0].Budget, bal[0].RhoBudget
	}
	if r.Scopes == nil {
		r.Scopes = []Balance{}
	}
	return r
}

// sharedBudget: every scope has one budget (and at least one scope). A
// Neo4j ledger keeps a budget per scope; the top-level budget is only
// stated when they agree.
func sharedBudget(bal []Balance) bool {
	for _, b := range bal {
		if b.Budget != bal[0].Budget || b.RhoBudget != bal[0].RhoBudget {
			return false
		}
	}
	return len(bal) > 0
}
