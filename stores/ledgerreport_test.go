package stores

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestLedgerReport: a file ledger's report is named by its path and holds
// the scope asked for, or every scope; an unknown scope is refused as
// such.
func TestLedgerReport(t *testing.T) {
	ctx := context.Background()
	cfg := &config.Config{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(t.TempDir(), "ledger.json"), "building-7"
	l, err := CreateLedger(ctx, cfg, nil, privacy.Budget{Epsilon: 4, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range []string{"building-7", ""} {
		r, err := LedgerReport(ctx, cfg, l, scope)
		if err != nil {
			t.Fatal(err)
		}
		if r.Ledger != cfg.Privacy.Ledger || len(r.Scopes) != 1 || r.Scopes[0].Scope != "building-7" {
			t.Errorf("scope %q: report %+v", scope, r)
		}
	}
	if _, err := LedgerReport(ctx, cfg, l, "elsewhere"); !errors.Is(err, privacy.ErrNoScope) {
		t.Errorf("unknown scope: %v, want ErrNoScope", err)
	}
}
