package answer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// An audit's pass is kept at its file and at the store, runs once (the
// second run and the estimate reuse it, from either), and leaves no
// checkpoint behind; its classes are the ones Certify computes alone.
func TestAuditPassKeepsOnePass(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	dir := t.TempDir()
	key := []byte("0123456789abcdef0123456789abcdef")
	save := Cache{Path: filepath.Join(dir, "answer.json"), MACKey: key, Software: "v-test"}
	store := &Cache{Path: filepath.Join(dir, "store.json"), MACKey: key, Software: "v-test"}
	var said []string
	var estimated *WorkEstimate
	pass := AuditPass{Graph: g, Tau: 1, Options: recovery.CertifierOptions{}, Cache: save, Store: store,
		Say: func(l string) { said = append(said, l) }, Estimated: func(e *WorkEstimate) { estimated = e }}

	first, err := pass.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Reused || first.Estimate == nil || estimated == nil || first.Estimate.Seconds != estimated.Seconds {
		t.Errorf("first run: reused %v, estimate %v, told %v: want a fresh pass with the estimate it was told", first.Reused, first.Estimate, estimated)
	}
	for _, c := range []*Cache{&save, store} {
		if _, _, err := c.Load(g, 1, recovery.CertifierOptions{}); err != nil {
			t.Errorf("%s does not hold the pass: %v", c.Path, err)
		}
	}
	if _, err := os.Stat(CheckpointPath(save.Path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the checkpoint is left after a pass that succeeded: %v", err)
	}
	alone, err := Certify(ctx, g, 1, recovery.CertifierOptions{}, Cache{Path: filepath.Join(dir, "alone.json"), MACKey: key, Software: "v-test"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Classes != alone.Classes || first.NodesMerged != alone.NodesMerged {
		t.Errorf("the pass's classes %d (merged %d), Certify's alone %d (merged %d)", first.Classes, first.NodesMerged, alone.Classes, alone.NodesMerged)
	}

	// Only the store holds it now: the run copies it to the file and reuses it.
	if err := os.Remove(save.Path); err != nil {
		t.Fatal(err)
	}
	again, err := pass.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || again.Estimate != nil {
		t.Errorf("second run: reused %v, estimate %v: want the store's pass reused, no estimate", again.Reused, again.Estimate)
	}
	est, err := pass.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if !est.Reused || !est.EstimateOnly || est.Save != save.Path {
		t.Errorf("estimate: reused %v, only %v, at %q: want the certificate at %q reused", est.Reused, est.EstimateOnly, est.Save, save.Path)
	}
}
