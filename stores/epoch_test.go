package stores

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestOpenEpochOnStores: an epoch opened on stores with a file ledger
// charges the scope its ρ once and publishes an order that verifies under
// the signer's key, expecting every node of the graph; opening it again
// re-publishes the same order and charges nothing; a node list naming a
// node outside the graph is refused (bad input naming the nodes) before
// anything is charged or written.
func TestOpenEpochOnStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := &config.Loaded{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(dir, "ledger.json"), "building-7"
	st, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.LedgerReport(ctx, &privacy.Budget{Epsilon: 10, Delta: 1e-5}, cfg.Privacy.Scope); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(ctx, cfg, Options{Ledger: ReadWrite}); err != nil {
		t.Fatal(err)
	}
	var seed [32]byte
	seed[0] = 3
	signer := ed25519.NewKeyFromSeed(seed[:])
	start := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	req := EpochRequest{Spec: job.ReleaseSpec{Graph: "karate", Scope: cfg.Privacy.Scope, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6},
		Epoch: "e1", NotBefore: start, NotAfter: start.Add(time.Hour), Out: filepath.Join(dir, "order.json"), Signer: signer}
	spent := func() float64 {
		t.Helper()
		b, err := st.Ledger.Balance(ctx, cfg.Privacy.Scope)
		if err != nil {
			t.Fatal(err)
		}
		return b[0].RhoSpent
	}

	bad := req
	bad.Nodes, bad.NodesFrom = []string{"1", "no-such-node"}, "nodes.txt"
	_, err = st.OpenEpoch(ctx, bad, job.Env{})
	var m *errkind.Message
	if errkind.Of(err) != errkind.BadInput || !errors.As(err, &m) || m.RenderText(func(p errkind.Param) string { return "<" + string(p) + ">" }) != `<nodes> nodes.txt: "no-such-node" is not a node of the graph` {
		t.Fatalf("a node outside the graph: %v", err)
	}
	if _, err := os.Stat(req.Out); !errors.Is(err, os.ErrNotExist) || spent() != 0 {
		t.Fatalf("refused, yet the order file is there (%v) or ρ %v is spent", err, spent())
	}

	first, err := st.OpenEpoch(ctx, req, job.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Charged || first.Republished || first.Expected != 34 || first.NodeCount != 34 || first.Rho <= 0 {
		t.Fatalf("first open: %+v", first)
	}
	if got := spent(); got != first.Rho || first.RhoSpent != got {
		t.Errorf("spent %v (summary says %v), want the epoch's ρ %v", got, first.RhoSpent, first.Rho)
	}
	o, _, err := local.ReadOrderFile(req.Out, signer.Public().(ed25519.PublicKey))
	if err != nil || o.ReleaseID != first.ReleaseID || o.Rho != first.Rho || len(o.Nodes) != 34 {
		t.Fatalf("the order file: %v, %+v", err, o)
	}
	again, err := st.OpenEpoch(ctx, req, job.Env{})
	if err != nil || again.Charged || !again.Republished || again.ReleaseID != first.ReleaseID {
		t.Fatalf("opened again: %v, %+v", err, again)
	}
	if got := spent(); got != first.Rho {
		t.Errorf("spent %v after opening twice, want one charge %v", got, first.Rho)
	}
}
