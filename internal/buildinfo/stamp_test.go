package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// TestStampNamesTheBuild: a source build that names no commit (this test
// binary) stamps the store's files with its executable's hash, so that
// another such build — other code, the same version string — computes
// again instead of trusting them.
func TestStampNamesTheBuild(t *testing.T) {
	v := Read()
	if v.Version != "(devel)" || (v.Commit != "" && !v.Modified) {
		t.Skip("a build that names its version or commit: the version string names it")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if want := v.String() + ", build " + hex.EncodeToString(sum[:8]); Stamp() != want {
		t.Fatalf("the store's build %q, want %q", Stamp(), want)
	}
}
