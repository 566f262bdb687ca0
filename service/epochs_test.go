package service

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// collectorFiles writes a signed order of n nodes whose window ends at
// notAfter (opened on a file ledger by local.OpenEpoch), the coordinator's
// public key and the nodes' report-MAC keys, and names them with the
// journal's directory.
func collectorFiles(t *testing.T, n int, notAfter time.Time) local.CollectorFiles {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	l, err := privacy.CreateFileLedger(ctx, filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 10, Delta: 1e-5}, privacy.FileLedgerOptions{}, "building-7")
	if err != nil {
		t.Fatal(err)
	}
	var seed [32]byte
	seed[0] = 1
	signer := ed25519.NewKeyFromSeed(seed[:])
	nodes := make([]string, n)
	macs := "node,reportMacKeyHex\n"
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%d", i)
		var k [32]byte
		k[0] = byte(i)
		macs += nodes[i] + "," + hex.EncodeToString(sensor.ReportMACKey(k)) + "\n"
	}
	o := local.Order{Graph: local.OrderGraph{NodeCount: n, RelationshipCount: 3, SHA256: fmt.Sprintf("%064x", 7)},
		Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-5, Sensitivity: 0.5, EffectiveSensitivity: 0.5001, Rho: 0.01,
		Sampler: local.Sampler{Version: 3, GridExponent: 20, GridVariance: 1 << 40, Sigma: 1},
		Scope:   "building-7", Epoch: "e1", NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter, Nodes: nodes}
	f := local.CollectorFiles{Order: filepath.Join(dir, "order.json"), CoordinatorKey: filepath.Join(dir, "coord.pub"),
		MACKeys: filepath.Join(dir, "macs.csv"), Journal: filepath.Join(dir, "journal")}
	if _, err := local.OpenEpoch(ctx, local.OpenRequest{Order: o, Out: f.Order, Signer: signer, Ledger: l}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.CoordinatorKey, []byte(hex.EncodeToString(signer.Public().(ed25519.PublicKey))+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.MACKeys, []byte(macs), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCollectorListenFailureFreesTheJournal: the collector opens its
// journal before it listens (a bad order is reported first); when the
// listener then fails, Run returns the listener's error and the journal is
// free for the next collector (a held one is refused as busy).
func TestCollectorListenFailureFreesTheJournal(t *testing.T) {
	files := collectorFiles(t, 3, time.Now().Add(time.Hour))
	refused := errors.New("listen refused")
	c := &Collector{Collection: Collection{Listen: func() (net.Listener, error) { return nil, refused }}, Files: files}
	if err := c.Run(context.Background()); !errors.Is(err, refused) {
		t.Fatalf("Run: %v, want the listener's error", err)
	}
	next, _, err := local.OpenCollectorFiles(files)
	if err != nil {
		t.Fatalf("the journal after a failed listen: %v", err)
	}
	next.Close()
}

// TestCollectorStopsWhenClosed: with StopWhenClosed the service stops
// once the order's window has ended and the epoch is closed, and the
// release file is in the journal with every node that did not report
// listed missing.
func TestCollectorStopsWhenClosed(t *testing.T) {
	files := collectorFiles(t, 3, time.Now().Add(300*time.Millisecond))
	c := &Collector{Collection: Collection{Journal: files.Journal, MaxBody: 1 << 20, BodyTimeout: time.Second,
		Listen: func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }}, Files: files, StopWhenClosed: true}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run returned only when its context ended, not once the epoch closed")
	}
	matches, _ := filepath.Glob(filepath.Join(files.Journal, "*.release.json"))
	if len(matches) != 1 {
		t.Fatalf("release files %v, want one", matches)
	}
	rel, err := privacy.ReadReleaseFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Meta.Missing) != 3 {
		t.Errorf("missing %v, want the 3 nodes that never reported", rel.Meta.Missing)
	}
}
