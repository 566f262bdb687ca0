package job

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A store's report counts its files and bytes; a prune to 0 reports every
// file removed and their size, and leaves none.
func TestStoreReport(t *testing.T) {
	dir := t.TempDir()
	sizes := map[string]int{"a.json": 10, "b.json": 25, "c.json": 7}
	old := time.Now().Add(-time.Hour)
	for name, n := range sizes {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	w := &WorkCache{Dir: dir, MaxBytes: 1 << 20}
	r, err := w.Report()
	if err != nil || r.Dir != dir || r.MaxBytes != 1<<20 || r.Files != 3 || r.Bytes != 42 || len(r.Entries) != 3 || r.Removed != nil {
		t.Fatalf("Report = %+v, %v; want 3 files, 42 bytes, listed", r, err)
	}
	r, err = w.PruneReport(0)
	if err != nil || r.Files != 0 || r.Bytes != 0 || len(r.Removed) != 3 || r.Freed != 42 || r.Entries != nil {
		t.Fatalf("PruneReport(0) = %+v, %v; want 3 removed (42 bytes), none left", r, err)
	}
}
