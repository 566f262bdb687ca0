package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

func TestKeygen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noise.key")
	out, code, err := runPrivacyCLI(t, "keygen", "--out", path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil || r["bits"] != 256.0 || r["path"] != path {
		t.Fatalf("output %s (%v)", out, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", st.Mode().Perm(), err)
	}
	k, err := privacy.LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(out, strings.TrimSpace(string(data))) || k == (privacy.Key{}) {
		t.Error("keygen printed the key or wrote the zero key")
	}
	// Never overwrite.
	if _, code, err := runPrivacyCLI(t, "keygen", "--out", path); code != exitBadInput || err == nil {
		t.Errorf("overwrite: exit %d, %v", code, err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Error("existing key file changed")
	}
	if _, code, _ := runPrivacyCLI(t, "keygen"); code != exitUsage {
		t.Errorf("missing --out: exit %d", code)
	}
}

// keygen and unmask take no positional argument: one is a usage error
// naming the command by its name.
func TestKeygenUnmaskNoArguments(t *testing.T) {
	for _, args := range [][]string{{"keygen", "--out", "k", "extra"}, {"unmask", "--key", "k", "x", "y"}} {
		_, code, err := runPrivacyCLI(t, args...)
		if code != exitUsage || err == nil || !strings.Contains(err.Error(), args[0]+" takes no arguments, got") {
			t.Errorf("%v: exit %d, %v", args, code, err)
		}
	}
}
