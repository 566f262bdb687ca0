package answer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestCertifyAnswersShardsMerge: a whole pass saves a certificate and
// reports its classes; shards save parts, report no classes and keep the
// precise flag they ran with; their merge reports the whole pass's
// classes, one shard per part.
func TestCertifyAnswersShardsMerge(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	const tau = 30
	dir := t.TempDir()
	opt := recovery.CertifierOptions{Tol: recovery.DefaultFitTolerance}
	cache := func(name string) Cache {
		return Cache{Path: filepath.Join(dir, name), Software: "test"}
	}
	whole, err := Certify(ctx, g, tau, opt, cache("whole.json"))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Classes == 0 || whole.NodeCount != g.N() || whole.Save != cache("whole.json").Path {
		t.Fatalf("whole pass: %+v", whole)
	}
	if _, err := os.Stat(whole.Save); err != nil {
		t.Fatalf("no certificate: %v", err)
	}
	var paths []string
	for i := range 2 {
		o := opt
		o.Shard = recovery.Shard{I: i, N: 2}
		c := cache(fmt.Sprintf("part-%d.json", i))
		r, err := Certify(ctx, g, tau, o, c)
		if err != nil {
			t.Fatal(err)
		}
		if r.Classes != 0 || r.Precise != o.Precise {
			t.Errorf("shard %d: %+v", i, r)
		}
		paths = append(paths, c.Path)
	}
	parts, err := LoadParts(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadParts(append(paths, filepath.Join(dir, "none.json")), nil); errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), "none.json: ") {
		t.Errorf("missing part: %v, want bad input naming its path", err)
	}
	merged, err := MergeAudit(ctx, g, tau, opt.Tol, parts, cache("merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	if merged.Shards != 2 || merged.Classes != whole.Classes || merged.NodesMerged != whole.NodesMerged {
		t.Errorf("merge %+v, want the whole pass's classes %+v", merged, whole)
	}
}
