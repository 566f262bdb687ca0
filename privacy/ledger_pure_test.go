package privacy_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/internal/ledgertest"
	"github.com/graphcloak/graphcloak/privacy"
)

// The file ledger accounts answers by their ε against the answers' share
// (ledgertest.PureCharges), and a ledger read afresh from the file agrees;
// without a share, in zCDP (ledgertest.ZCDPCharges).
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
	plain, err := privacy.CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"), ledgertest.NoShare, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.ZCDPCharges(t, plain, "s")
}

// The file ledger's answers' δ share (ledgertest.DeltaCharges), read back
// from the file; a ledger without one refuses δ₀ > 0.
func TestFileLedgerDeltaCharges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	l, err := privacy.CreateFileLedger(context.Background(), path, ledgertest.DeltaShare, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.DeltaCharges(t, l, "s", func() privacy.Ledger {
		again, err := privacy.OpenFileLedger(path, privacy.FileLedgerOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return again
	})
	plain, err := privacy.CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"), ledgertest.NoShare, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.NoDeltaShare(t, plain, "s")
}
