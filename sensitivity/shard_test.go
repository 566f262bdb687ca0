package sensitivity

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// shardAndMerge runs every shard of count, as certificates, and merges them.
func shardAndMerge(t *testing.T, g *laplacian.Graph, tau, alpha float64, opt Options, count int, key []byte) Certificate {
	t.Helper()
	parts := make([]PartialCertificate, count)
	for i := range count {
		p, err := GraphShard(g, tau, alpha, opt, i, count)
		if err != nil {
			t.Fatalf("shard %d/%d: %v", i, count, err)
		}
		if parts[i], err = NewPartialCertificate(g, p, tau, "test"); err != nil {
			t.Fatalf("shard %d/%d: %v", i, count, err)
		}
		if err := parts[i].Seal(key); err != nil {
			t.Fatal(err)
		}
	}
	c, err := MergePartials(parts, nil, key)
	if err != nil {
		t.Fatalf("merge of %d shards: %v", count, err)
	}
	return c
}

// sameCertificate reports how c (merged) differs from want (the single
// run's), Created aside.
// The column scheme's result is named chebyshev-columns when the run
// refined every edge and bound-and-refine when it pruned some: which one
// a single run says is a matter of when it checked, not of the value, and
// a merge cannot know it (docs/sharding.md).
func sameCertificate(c, want Certificate) string {
	c.Created, want.Created = time.Time{}, time.Time{}
	columns := func(m string) bool { return m == "chebyshev-columns" || m == "bound-and-refine" }
	if columns(c.Method) && columns(want.Method) {
		c.Method = want.Method
	}
	if c != want {
		return fmt.Sprintf("merged %+v\n single %+v", c, want)
	}
	return ""
}

// TestShardsMergeToTheSingleRun: on the graphs the sensitivity tests use,
// by every method, N shards merged give the single run's certificate:
// the same Δ2 (the same float64), slack, maximising edge, exactness and
// method.
func TestShardsMergeToTheSingleRun(t *testing.T) {
	type run struct {
		spec string
		tau  float64
		opt  Options
	}
	sparse := func(s Scheme) Options { return Options{Method: expm.Sparse, Scheme: s} }
	runs := []run{
		{"karate", 0.5, Options{}},                        // dense: not divided
		{"pa:n=400,m=3,seed=2", 1, sparse(SchemeColumns)}, // columns
		{"pa:n=400,m=3,seed=2", 1, sparse(SchemeLanczos)}, // lanczos
		{"pa:n=1500,m=3,seed=1", 0.5, sparse(SchemeAuto)},
		{"rgg:n=3000,radius=0.04", 1, sparse(SchemeColumns)},
		{"rgg:n=3000,radius=0.04", 0.3, sparse(SchemeLanczos)},
		{"sbm:sizes=300x300,pin=0.05,pout=0.002,seed=7", 2, sparse(SchemeAuto)},
		{"grid:rows=12,cols=15", 1, sparse(SchemeColumns)},
		{"star:n=40", 1, sparse(SchemeLanczos)},
		{"pa:n=400,m=3,seed=2", 20, Options{Scheme: SchemePanels}}, // panels: not divided
		{"pa:n=600,m=3,seed=2", 1, sparse(SchemeGram)},             // gram: not divided
	}
	if testing.Short() {
		runs = runs[:3]
	}
	for _, r := range runs {
		g, _, err := laplacian.Generate(r.spec)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Graph(g, r.tau, 1.5, r.opt)
		if err != nil {
			t.Fatalf("%s: %v", r.spec, err)
		}
		want, err := NewCertificate(g, s, r.tau, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 3, 7} {
			c := shardAndMerge(t, g, r.tau, 1.5, r.opt, n, nil)
			if d := sameCertificate(c, want); d != "" {
				t.Errorf("%s τ=%g (%s), %d shards:\n%s", r.spec, r.tau, s.Method, n, d)
			}
		}
	}
}

// TestMergeRefuses: a missing, duplicated or foreign shard (another
// graph, τ, α, software, N, scheme), a partial whose MAC does not verify
// and one with no MAC under a key are refused, naming the problem.
func TestMergeRefuses(t *testing.T) {
	g, _, _ := laplacian.Generate("pa:n=300,m=3,seed=1")
	other, _, _ := laplacian.Generate("pa:n=300,m=3,seed=2")
	opt := Options{Method: expm.Sparse, Scheme: SchemeColumns}
	key := []byte("0123456789abcdef0123456789abcdef")
	shard := func(g *laplacian.Graph, tau, alpha float64, opt Options, i, n int, sw string) PartialCertificate {
		p, err := GraphShard(g, tau, alpha, opt, i, n)
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewPartialCertificate(g, p, tau, sw)
		if err != nil {
			t.Fatal(err)
		}
		c.Seal(key)
		return c
	}
	good := []PartialCertificate{shard(g, 1, 1, opt, 0, 3, "v1"), shard(g, 1, 1, opt, 1, 3, "v1"), shard(g, 1, 1, opt, 2, 3, "v1")}
	if _, err := MergePartials(good, nil, key); err != nil {
		t.Fatalf("the good set: %v", err)
	}
	edited := good[1]
	edited.Delta2 /= 2
	unsealed := good[1]
	unsealed.MAC = ""
	crossed := good[1]
	crossed.Lower = 2 * (good[0].Delta2 + good[1].Delta2 + good[2].Delta2)
	crossed.Seal(key)
	for name, c := range map[string]struct {
		parts []PartialCertificate
		want  string
	}{
		"missing":    {good[:2], "shard 2/3 missing"},
		"duplicated": {append(good[:3:3], good[1]), "shard 1/3 is given twice"},
		"graph":      {[]PartialCertificate{good[0], shard(other, 1, 1, opt, 1, 3, "v1"), good[2]}, "its graph is"},
		"tau":        {[]PartialCertificate{good[0], shard(g, 2, 1, opt, 1, 3, "v1"), good[2]}, "its tau is 2"},
		"alpha":      {[]PartialCertificate{good[0], shard(g, 1, 2, opt, 1, 3, "v1"), good[2]}, "its alpha is 2"},
		"software":   {[]PartialCertificate{good[0], shard(g, 1, 1, opt, 1, 3, "v2"), good[2]}, "its software version is v2"},
		"count":      {[]PartialCertificate{good[0], shard(g, 1, 1, opt, 1, 2, "v1"), good[2]}, "its shard count N is 2"},
		"scheme": {[]PartialCertificate{good[0], shard(g, 1, 1, Options{Method: expm.Sparse, Scheme: SchemeLanczos}, 1, 3, "v1"), good[2]},
			"different methods"},
		"edited":   {[]PartialCertificate{good[0], edited, good[2]}, "MAC does not verify"},
		"unsealed": {[]PartialCertificate{good[0], unsealed, good[2]}, "carries no MAC"},
		"none":     {nil, "no partial certificates"},
		"crossed":  {[]PartialCertificate{good[0], crossed, good[2]}, "contradict each other"},
	} {
		_, err := MergePartials(c.parts, nil, key)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
	var me *MergeError
	if _, err := MergePartials(good[:2], nil, key); !errors.As(err, &me) {
		t.Errorf("a missing shard: %T, want *MergeError", err)
	}
}

// TestPartialCertificateFile: a partial certificate saves and loads as
// written; a full certificate is not a partial one, nor the other way.
func TestPartialCertificateFile(t *testing.T) {
	g, _, _ := laplacian.Generate("pa:n=300,m=3,seed=1")
	p, err := GraphShard(g, 1, 1, Options{}, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewPartialCertificate(g, p, 1, "v1")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.json")
	if err := SavePartialCertificate(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := LoadPartialCertificate(path)
	if err != nil || back != c {
		t.Fatalf("loaded %+v, %v; saved %+v", back, err, c)
	}
	if _, err := LoadCertificate(path); err == nil {
		t.Error("a partial certificate loads as a certificate")
	}
	for _, bad := range []string{"1/1/1", "2/2", "-1/2", "a/b", "1/0", "01/2"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if i, n, err := ParseShard("3/8"); err != nil || i != 3 || n != 8 {
		t.Errorf("ParseShard(3/8) = %d, %d, %v", i, n, err)
	}
}
