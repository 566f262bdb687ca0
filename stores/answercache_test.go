package stores

import (
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// TestAnswerCache: the certificate is sealed exactly when a ledger key is
// configured, and always stamped with the build; a missing key file is
// refused.
func TestAnswerCache(t *testing.T) {
	dir := t.TempDir()
	keyFile := writeKeyFile(t, filepath.Join(dir, "ledger.key"))
	for _, c := range []struct {
		key    string
		sealed bool
	}{{"", false}, {keyFile, true}} {
		cfg := &config.Config{}
		cfg.Privacy.LedgerKeyFile = c.key
		cache, err := AnswerCache(cfg, "answer.json")
		if err != nil {
			t.Fatal(err)
		}
		if cache.Path != "answer.json" || (cache.MACKey != nil) != c.sealed || cache.Software == "" {
			t.Errorf("key %q: cache %+v", c.key, cache)
		}
	}
	cfg := &config.Config{}
	cfg.Privacy.LedgerKeyFile = filepath.Join(dir, "none.key")
	if _, err := AnswerCache(cfg, "answer.json"); err == nil {
		t.Error("a missing ledger key accepted")
	}
}
