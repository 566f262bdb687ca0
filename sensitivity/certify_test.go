package sensitivity

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestCertify: the whole computation reports Graph's Δ2 with
// the maximising pair by node key and saves a sealed certificate; the two
// shards of the same computation save partial certificates that merge to
// the same Δ2.
func TestCertify(t *testing.T) {
	g, err := laplacian.Path(12)
	if err != nil {
		t.Fatal(err)
	}
	dir, key := t.TempDir(), []byte("0123456789abcdef0123456789abcdef")
	spec := CertifySpec{Graph: g, GraphName: "path", Tau: 1, Alpha: 1, Options: Options{DenseLimit: -1},
		Save: filepath.Join(dir, "cert.json"), MACKey: key, Software: "test"}
	whole, err := Certify(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Graph(g, 1, 1, Options{DenseLimit: -1})
	if whole.Delta2 != s.Delta2 || whole.Graph != "path" || *whole.Tau != 1 || len(whole.Edge) != 2 || whole.Edge[0] != g.Key(s.Edge[0]) {
		t.Errorf("report %+v of %+v", whole, s)
	}
	c, err := LoadCertificate(spec.Save)
	if err != nil || c.Delta2 != s.Delta2 || c.MAC == "" {
		t.Fatalf("saved certificate %+v (%v), want Δ2 %g sealed", c, err, s.Delta2)
	}
	var names []string
	for i := range 2 {
		sh := spec
		sh.ShardIndex, sh.ShardCount, sh.Save = i, 2, filepath.Join(dir, "part"+string(rune('0'+i))+".json")
		r, err := Certify(context.Background(), sh)
		if err != nil {
			t.Fatal(err)
		}
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 2 || r.Shard.Save != sh.Save || r.Certified {
			t.Errorf("shard %d report %+v", i, r)
		}
		names = append(names, sh.Save)
	}
	merged := filepath.Join(dir, "merged.json")
	r, err := MergeCertificates(names, merged, key)
	if err != nil || r.Delta2 != s.Delta2 || r.Shards != 2 || !r.Certified {
		t.Fatalf("merged shards: %+v (%v), want Δ2 %g of 2 shards", r, err, s.Delta2)
	}
	if c, err := LoadCertificate(merged); err != nil || c.Delta2 != s.Delta2 || c.MAC == "" {
		t.Errorf("merged certificate %+v (%v), want Δ2 %g sealed", c, err, s.Delta2)
	}
	if _, err := MergeCertificates(names[:1], filepath.Join(dir, "half.json"), key); errkind.Of(err) != errkind.BadInput {
		t.Errorf("a shard missing: %v (kind %v), want bad input", err, errkind.Of(err))
	}
}

// TestCertifyErrors: a certificate that cannot be written is bad input
// naming ParamSaveFile; a done context stops the computation.
func TestCertifyErrors(t *testing.T) {
	g, _ := laplacian.Path(8)
	spec := CertifySpec{Graph: g, Tau: 1, Alpha: 1, Save: filepath.Join(t.TempDir(), "missing", "cert.json")}
	_, err := Certify(context.Background(), spec)
	if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, func(p errkind.Param) string { return "<" + string(p) + ">" }), "<save>: ") {
		t.Errorf("unwritable certificate: %v (kind %v)", err, errkind.Of(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Certify(ctx, spec); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: %v", err)
	}
}
