package sensitivity

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cache gives back exactly the Δ2 stored for the same graph, τ, key
// and version, and names why it cannot be used otherwise: nothing
// cached, an edited file (Δ2 halved: the MAC no longer verifies), another
// key, another version, another graph or a smaller τ.
func TestCache(t *testing.T) {
	g := certGraph(t, 2)
	s, err := Graph(g, 0.7, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("k_cert of the ledger key")
	c := Cache{Path: filepath.Join(t.TempDir(), "cache.json"), MACKey: key, Software: "v1"}
	if _, err := c.Load(g, 0.7, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("empty cache: %v, want fs.ErrNotExist", err)
	}
	if err := c.Store(g, s, 0.7); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load(g, 0.7, 1)
	if err != nil || got.Delta2 != s.Delta2 || !got.Certified {
		t.Fatalf("cached %+v, %v; stored Δ2 %v", got, err, s.Delta2)
	}
	var mac *CertificateMACError
	var stale *StaleCacheError
	for name, tc := range map[string]struct {
		cache Cache
		tau   float64
		edit  func(*Certificate)
		is    func(error) bool
	}{
		"Δ2 halved":   {c, 0.7, func(x *Certificate) { x.Delta2 /= 2 }, func(err error) bool { return errors.As(err, &mac) }},
		"MAC removed": {c, 0.7, func(x *Certificate) { x.MAC = "" }, func(err error) bool { return errors.As(err, &mac) && mac.Missing }},
		"another key": {Cache{Path: c.Path, MACKey: []byte("other"), Software: "v1"}, 0.7, nil,
			func(err error) bool { return errors.As(err, &mac) }},
		"another version": {Cache{Path: c.Path, MACKey: key, Software: "v2"}, 0.7, nil,
			func(err error) bool { return errors.As(err, &stale) && stale.Software == "v1" }},
		"smaller τ": {c, 0.5, nil, func(err error) bool { return errors.Is(err, ErrCertificateMismatch) }},
	} {
		t.Run(name, func(t *testing.T) {
			if err := c.Store(g, s, 0.7); err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				cert, err := LoadCertificate(c.Path)
				if err != nil {
					t.Fatal(err)
				}
				tc.edit(&cert)
				if err := SaveCertificate(c.Path, cert); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tc.cache.Load(g, tc.tau, 1); err == nil || !tc.is(err) {
				t.Fatalf("loaded: %v", err)
			}
		})
	}
	if err := c.Store(g, s, 0.7); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(certGraph(t, 3), 0.7, 1); !errors.Is(err, ErrCertificateMismatch) || !strings.Contains(err.Error(), "graph") {
		t.Errorf("another graph: %v", err)
	}
	if err := os.WriteFile(c.Path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(g, 0.7, 1); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unreadable cache: %v", err)
	}
}
