package stores

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestLedgerReport: a file ledger (through stores opened without Neo4j) is refused until it is created; created
// with a budget, its report is named by its path and holds the scope
// asked for, or every scope; an unknown scope is refused as such, and
// creating it again with another budget is refused.
func TestLedgerReport(t *testing.T) {
	ctx := context.Background()
	cfg := &config.Loaded{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(t.TempDir(), "ledger.json"), "building-7"
	st, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.LedgerReport(ctx, nil, ""); !errors.Is(err, privacy.ErrNoLedger) {
		t.Fatalf("no ledger yet: %v, want ErrNoLedger", err)
	}
	budget := privacy.Budget{Epsilon: 4, Delta: 1e-6}
	if _, err := st.LedgerReport(ctx, &budget, cfg.Privacy.Scope); err != nil {
		t.Fatal(err)
	}
	for _, scope := range []string{"building-7", ""} {
		r, err := st.LedgerReport(ctx, nil, scope)
		if err != nil {
			t.Fatal(err)
		}
		if r.Ledger != cfg.Privacy.Ledger || len(r.Scopes) != 1 || r.Scopes[0].Scope != "building-7" || r.Budget == nil || *r.Budget != budget {
			t.Errorf("scope %q: report %+v", scope, r)
		}
	}
	if _, err := st.LedgerReport(ctx, nil, "elsewhere"); !errors.Is(err, privacy.ErrNoScope) {
		t.Errorf("unknown scope: %v, want ErrNoScope", err)
	}
	if _, err := st.LedgerReport(ctx, &privacy.Budget{Epsilon: 8, Delta: 1e-6}, cfg.Privacy.Scope); err == nil {
		t.Error("the scope created again with another budget")
	}
}
