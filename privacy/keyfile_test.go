package privacy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// CreateKeyFile writes a 256-bit key that LoadKey reads back, in a file
// of the mode it reports, and never overwrites a file.
func TestCreateKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noise.key")
	kf, err := CreateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode, _ := strconv.ParseUint(kf.Mode, 8, 32); kf.Path != path || kf.Bits != 256 || kf.Format != "hex" || st.Mode().Perm() != fs.FileMode(mode) {
		t.Errorf("report %+v, file mode %v", kf, st.Mode().Perm())
	}
	if _, err := LoadKey(path); err != nil {
		t.Errorf("the key file does not load: %v", err)
	}
	before, _ := os.ReadFile(path)
	if _, err := CreateKeyFile(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write: %v, want fs.ErrExist", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("an existing key file was overwritten")
	}
}
