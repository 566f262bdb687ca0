package local

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

func testLedger(t *testing.T, eps float64) *privacy.FileLedger {
	t.Helper()
	l, err := privacy.CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"),
		privacy.Budget{Epsilon: eps, Delta: 1e-5}, privacy.FileLedgerOptions{}, "building-7")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func spent(t *testing.T, l privacy.Ledger) float64 {
	t.Helper()
	b, err := l.Balance(context.Background(), "building-7")
	if err != nil {
		t.Fatal(err)
	}
	return b[0].RhoSpent
}

func openReq(t *testing.T, l privacy.Ledger, out string) OpenRequest {
	nodes, _ := testKeys(5)
	o := testOrder(nodes)
	o.ReleaseID = ""
	return OpenRequest{Order: o, Out: out, Signer: testSigner(1), Ledger: l}
}

// TestOpenEpochChargesOnce: the first open charges ρ and publishes a
// signed order; opening again re-publishes it (same release id), never
// charging again; a run stopped between the charge and the publication
// is finished by the next without a new charge or release id.
func TestOpenEpochChargesOnce(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t, 10)
	out := filepath.Join(t.TempDir(), "order.json")
	req := openReq(t, l, out)
	first, err := OpenEpoch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Charged || first.Republished || spent(t, l) != req.Order.Rho {
		t.Fatalf("first open: %+v, spent %v", first, spent(t, l))
	}
	o, _, err := ReadOrderFile(out, testSigner(1).Public().(ed25519.PublicKey))
	if err != nil || o.ReleaseID != first.Order.ReleaseID || o.Rho != req.Order.Rho {
		t.Fatalf("order file: %+v, %v", o, err)
	}
	again, err := OpenEpoch(ctx, req)
	if err != nil || again.Charged || !again.Republished || again.Order.ReleaseID != first.Order.ReleaseID {
		t.Fatalf("second open: %+v, %v", again, err)
	}
	// Stopped after the charge, before the rename: the pending file is there.
	dir, base := filepath.Split(out)
	if err := os.Rename(out, filepath.Join(dir, "."+base+".pending")); err != nil {
		t.Fatal(err)
	}
	resumed, err := OpenEpoch(ctx, req)
	if err != nil || resumed.Charged || !resumed.Resumed || resumed.Order.ReleaseID != first.Order.ReleaseID {
		t.Fatalf("resumed open: %+v, %v", resumed, err)
	}
	if spent(t, l) != req.Order.Rho {
		t.Errorf("spent %v after three opens, want one charge %v", spent(t, l), req.Order.Rho)
	}
}

// TestOpenEpochRefusals: a forged order file, another epoch's file, other
// parameters for the same epoch, an epoch a central release charged, and
// an exhausted budget are refused with their kinds; none charges.
func TestOpenEpochRefusals(t *testing.T) {
	ctx := context.Background()
	l := testLedger(t, 10)
	dir := t.TempDir()
	out := filepath.Join(dir, "order.json")
	req := openReq(t, l, out)
	if _, err := OpenEpoch(ctx, req); err != nil {
		t.Fatal(err)
	}
	base := spent(t, l)
	other := req
	other.Order.Tau = 2
	if _, err := OpenEpoch(ctx, other); !errors.As(err, new(*OrderFileError)) {
		t.Errorf("other parameters, same epoch: %v", err)
	}
	other = req
	other.Order.Epoch = "e2"
	if _, err := OpenEpoch(ctx, other); !errors.As(err, new(*OrderFileError)) {
		t.Errorf("another epoch onto an order file: %v", err)
	}
	forged := req
	forged.Signer = testSigner(2)
	if _, err := OpenEpoch(ctx, forged); !errors.As(err, new(*OrderFileError)) {
		t.Errorf("order file signed by another key: %v", err)
	}
	if spent(t, l) != base {
		t.Errorf("refused orders charged: spent %v, want %v", spent(t, l), base)
	}
	// A central release charged epoch e3 before.
	if err := l.Charge(ctx, privacy.Charge{Scope: "building-7", ReleaseID: "e3", Rho: 0.01}); err != nil {
		t.Fatal(err)
	}
	base = spent(t, l)
	central := req
	central.Order.Epoch, central.Out = "e3", filepath.Join(dir, "e3.json")
	if _, err := OpenEpoch(ctx, central); errkind.Of(err) != errkind.Charged {
		t.Errorf("epoch charged by a central release: %v", err)
	}
	huge := req
	huge.Order.Epoch, huge.Out, huge.Order.Rho = "e4", filepath.Join(dir, "e4.json"), 1e6
	if _, err := OpenEpoch(ctx, huge); errkind.Of(err) != errkind.Budget {
		t.Errorf("over budget: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".e4.json.pending")); !os.IsNotExist(err) {
		t.Error("a refused charge left its pending order")
	}
	if spent(t, l) != base {
		t.Errorf("refusals charged: spent %v, want %v", spent(t, l), base)
	}
}
