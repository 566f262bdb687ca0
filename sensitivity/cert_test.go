package sensitivity

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

func certGraph(t *testing.T, w float64) *laplacian.Graph {
	t.Helper()
	keys := []string{"hub", "a", "b", "c", "d", "e"}
	g, err := laplacian.FromEdges(6, keys, []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 0, V: 2, Weight: w},
		{U: 0, V: 3, Weight: 1e-3}, {U: 3, V: 4, Weight: 1e3}, {U: 4, V: 5, Weight: 1}}, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestCertificateRoundTrip(t *testing.T) {
	g := certGraph(t, 2)
	s, err := Graph(g, 0.7, 1.5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCertificate(g, s, 0.7, "test")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cert.json")
	if err := SaveCertificate(path, c); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the certificate", len(entries))
	}
	back, err := LoadCertificate(path)
	if err != nil {
		t.Fatal(err)
	}
	if back != c {
		t.Fatalf("loaded %+v, saved %+v", back, c)
	}
	got, err := back.Verify(g, 0.7, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	if got.Delta2 != s.Delta2 || !got.Certified || got.Edge != s.Edge {
		t.Fatalf("verified %+v, computed %+v", got, s)
	}
	// α rescaling: the certificate at α = 1.5 gives Δ2 at α = 4 as a
	// proven upper bound, matching a direct computation to its slack.
	direct, err := Graph(g, 0.7, 4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := back.Verify(g, 0.7, 4)
	if err != nil {
		t.Fatal(err)
	}
	if scaled.Delta2 < direct.Delta2-direct.Slack || scaled.Delta2-direct.Delta2 > 1e-12*direct.Delta2+direct.Slack+scaled.Slack {
		t.Fatalf("rescaled Δ2 %v, direct %v ± %v", scaled.Delta2, direct.Delta2, direct.Slack)
	}
}

func TestCertificateMismatch(t *testing.T) {
	g := certGraph(t, 2)
	s, _ := Graph(g, 0.7, 1, Options{})
	c, _ := NewCertificate(g, s, 0.7, "test")
	for name, tc := range map[string]struct {
		g     *laplacian.Graph
		tau   float64
		field string
		text  string
	}{
		"weight":     {certGraph(t, math.Nextafter(2, 3)), 0.7, "graph", "same counts but different keys, edges or weights"},
		"extra edge": {func() *laplacian.Graph { p, _ := laplacian.Path(6); return p }(), 0.7, "graph", ""},
		"tau":        {g, 0.69999, "tau", "0.7 in the certificate but 0.69999 here (a Δ2 proven at a larger τ does not bound"},
	} {
		_, err := c.Verify(tc.g, tc.tau, 1)
		var me *CertificateMismatchError
		if !errors.As(err, &me) || !errors.Is(err, ErrCertificateMismatch) || me.Field != tc.field || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestLoadCertificateRejects(t *testing.T) {
	g := certGraph(t, 2)
	s, _ := Graph(g, 0.7, 1, Options{})
	c, _ := NewCertificate(g, s, 0.7, "test")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := SaveCertificate(good, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	text := string(raw)
	for name, body := range map[string]string{
		"truncated":     text[:len(text)/2],
		"unknown field": strings.Replace(text, `"exact"`, `"surprise": 1, "exact"`, 1),
		"negative":      strings.Replace(text, `"delta2": `, `"delta2": -`, 1),
		"bad hash":      strings.Replace(text, c.Graph.SHA256, "abc", 1),
		"kind":          strings.Replace(text, CertificateKind, "other", 1),
		"trailing":      text + "{}",
		"zero tau":      strings.Replace(text, `"tau": 0.7`, `"tau": 0`, 1),
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(p, []byte(body), 0o600)
		if _, err := LoadCertificate(p); err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
	if _, err := LoadCertificate(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := NewCertificate(g, Result{Delta2: 1}, 0.7, "x"); err == nil {
		t.Error("an uncertified sensitivity was certified")
	}
}

// A certificate at a smaller τ bounds Δ2 at a larger one (Δ2 is
// non-increasing in τ, docs/derivations.md §2.7): accepted as an upper
// bound, checked against Δ2 computed directly at each larger τ.
func TestCertificateAtSmallerTau(t *testing.T) {
	g := certGraph(t, 2)
	s, err := Graph(g, 0.7, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCertificate(g, s, 0.7, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, tau := range []float64{0.70001, 1, 3, 20} {
		got, err := c.Verify(g, tau, 2)
		if err != nil {
			t.Fatalf("τ = %g: %v", tau, err)
		}
		direct, err := Graph(g, tau, 2, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Delta2 < direct.Delta2 || got.Exact || got.Slack < got.Delta2-direct.Delta2 || !strings.Contains(got.Method, "@tau=0.7") {
			t.Errorf("τ = %g: certificate gives %+v, direct Δ2 %v: want an inexact upper bound", tau, got, direct.Delta2)
		}
	}
}

// Certificates sealed under a ledger key verify only under it and only
// unedited; a keyed installation refuses an unsealed one.
func TestCertificateMAC(t *testing.T) {
	g := certGraph(t, 2)
	s, _ := Graph(g, 0.7, 1, Options{})
	c, _ := NewCertificate(g, s, 0.7, "test")
	key, other := []byte("certificate key of one installation"), []byte("certificate key of another")
	var missing *CertificateMACError
	if err := c.CheckMAC(key); !errors.As(err, &missing) || !missing.Missing {
		t.Errorf("unsealed certificate under a ledger key: %v, want a missing MAC", err)
	}
	if err := c.CheckMAC(nil); err != nil {
		t.Errorf("unsealed certificate without a ledger key: %v", err)
	}
	if err := c.Seal(key); err != nil || len(c.MAC) != 64 {
		t.Fatalf("seal: %v, mac %q", err, c.MAC)
	}
	path := filepath.Join(t.TempDir(), "c.json")
	if err := SaveCertificate(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := LoadCertificate(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.CheckMAC(key); err != nil {
		t.Errorf("sealed certificate after a round trip: %v", err)
	}
	var bad *CertificateMACError
	if err := back.CheckMAC(other); !errors.As(err, &bad) || bad.Missing {
		t.Errorf("under another key: %v, want a wrong MAC", err)
	}
	for name, edit := range map[string]func(*Certificate){
		"halved delta2": func(c *Certificate) { c.Delta2 /= 2 },
		"tau":           func(c *Certificate) { c.Tau *= 2 },
		"alpha":         func(c *Certificate) { c.Alpha *= 2 },
		"exact":         func(c *Certificate) { c.Exact = !c.Exact },
	} {
		e := back
		edit(&e)
		if err := e.CheckMAC(key); !errors.As(err, &bad) {
			t.Errorf("%s: %v, want a wrong MAC", name, err)
		}
	}
}

// A certificate names its graph in key order: made on the graph as read
// (an edge list's order) it verifies on the same graph sorted (plan's) and
// the other way round, and a permuted graph with one edge moved does not
// (issue 61: one Δ2 whatever command loaded the graph).
func TestCertificateAnyNodeOrder(t *testing.T) {
	g, _ := laplacian.Karate()
	sorted, _, err := laplacian.SortedByKey(g)
	if err != nil {
		t.Fatal(err)
	}
	if sorted.Fingerprint() == g.Fingerprint() {
		t.Fatal("sorting karate kept its order: the test needs another")
	}
	s, err := Graph(g, 1, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*laplacian.Graph{{g, sorted}, {sorted, g}} {
		c, err := NewCertificate(pair[0], s, 1, "test")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Verify(pair[1], 1, 1); err != nil || got.Delta2 != s.Delta2 {
			t.Errorf("certificate of one order on the other: %v (Δ2 %g, want %g)", err, got.Delta2, s.Delta2)
		}
	}
	c, _ := NewCertificate(g, s, 1, "test")
	var edges []laplacian.Edge
	g.ForEachEdge(func(i, j int, w float64) { edges = append(edges, laplacian.Edge{U: int32(i), V: int32(j), Weight: w}) })
	edges[0].V = int32((int(edges[0].V) + 5) % g.N())
	if edges[0].V == edges[0].U {
		edges[0].V++
	}
	other, err := laplacian.FromEdges(g.N(), g.Keys(), edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(other, 1, 1); !errors.Is(err, ErrCertificateMismatch) {
		t.Errorf("another graph verified: %v", err)
	}
}
