package answer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// ledger is a fresh file ledger with budget (eps, delta) for scope "test".
func ledger(t *testing.T, eps, delta float64) *privacy.FileLedger {
	t.Helper()
	l, err := privacy.CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"), privacy.Budget{Epsilon: eps, Delta: delta}, privacy.FileLedgerOptions{}, "test", "s")
	if err != nil {
		t.Fatal(err)
	}
	return l
}
