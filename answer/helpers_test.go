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

// prepareAnswer is what Run decides of req apart from the charge: the
// mechanism (prepareMechanism) and the fit of the readings (d.fit).
func prepareAnswer(ctx context.Context, req Request) (*answerDraw, error) {
	d, err := prepareMechanism(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := d.fit(ctx, req); err != nil {
		return nil, err
	}
	return d, nil
}
