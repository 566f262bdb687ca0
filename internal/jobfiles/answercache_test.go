package jobfiles

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestAnswerCache: the certificate is always sealed — under the ledger
// key's certificate subkey when one is configured, else under this
// installation's key — and stamped with the build; a missing key file is
// refused.
func TestAnswerCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	keyFile := writeKeyFile(t, filepath.Join(dir, "ledger.key"))
	ledger, err := privacy.LoadKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	installation, err := privacy.CacheMACKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		want []byte
	}{{"", installation}, {keyFile, ledger.CertificateMACKey()}} {
		cfg := &config.Config{}
		cfg.Privacy.LedgerKeyFile = c.key
		cache, err := AnswerCache(cfg, "answer.json")
		if err != nil {
			t.Fatal(err)
		}
		if cache.Path != "answer.json" || !bytes.Equal(cache.MACKey, c.want) || cache.Software == "" {
			t.Errorf("key %q: cache %+v", c.key, cache)
		}
	}
	cfg := &config.Config{}
	cfg.Privacy.LedgerKeyFile = filepath.Join(dir, "none.key")
	if _, err := AnswerCache(cfg, "answer.json"); err == nil {
		t.Error("a missing ledger key accepted")
	}
}
