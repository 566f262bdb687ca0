package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCommitWith: a complete write is committed to the path; a failed one
// is not, and Abort leaves nothing behind.
func TestCommitWith(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nodes.csv")
	o, err := Open("out", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.CommitWith(func(w io.Writer) error { _, err := io.WriteString(w, "a,1\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a,1\n" {
		t.Errorf("committed %q (%v)", b, err)
	}
	failed := filepath.Join(dir, "failed.csv")
	o, err = Open("out", failed, nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := o.CommitWith(func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Errorf("failed write: %v", err)
	}
	o.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
