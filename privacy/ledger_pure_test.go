package privacy_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/internal/ledgertest"
	"github.com/graphcloak/graphcloak/privacy"
)

// The file ledger accounts answers by their ε (ledgertest.PureCharges),
// and a ledger read afresh from the file agrees.
func TestFileLedgerPureCharges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	l, err := privacy.CreateFileLedger(context.Background(), path, ledgertest.Budget, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.PureCharges(t, l, "s", func() privacy.Ledger {
		again, err := privacy.OpenFileLedger(path, privacy.FileLedgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return again
	})
}
