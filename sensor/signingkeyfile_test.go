package sensor

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// CreateSigningKeyFile describes what it wrote: the public key it names
// is the one in the .pub file and the private key's, the key file is
// 0600, and an existing file is never overwritten.
func TestCreateSigningKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coord.key")
	r, err := CreateSigningKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != path || r.PublicKeyPath != path+".pub" || r.Algorithm != "ed25519" || r.Mode != "0600" {
		t.Fatalf("described %+v", r)
	}
	pub, err := LoadCoordinatorKey(r.PublicKeyPath)
	if err != nil || hex.EncodeToString(pub) != r.PublicKey {
		t.Fatalf("the .pub file holds %x (%v), described %s", pub, err, r.PublicKey)
	}
	priv, err := LoadSigningKey(path)
	if err != nil || !priv.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatalf("the signing key's public key is not the .pub file's (%v)", err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if _, err := CreateSigningKeyFile(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("over an existing key: %v, want fs.ErrExist", err)
	}
}
