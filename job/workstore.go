package job

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The work cache is the one store of work every command that certifies,
// audits, calibrates or forecasts shares (plan, locate --private-answer,
// serve, audit): its size is bounded by MaxBytes, the entries least
// recently used pruned first, and it is safe to share between processes.
// Every file is written whole under a temporary name and renamed (a
// reader never sees half a file), every value is a function of its name's
// inputs (two processes writing one entry write the same thing: the last
// rename wins and both are right), and a file is trusted only when its
// seal verifies. Pruning a file a reader has open costs that reader
// nothing (POSIX keeps it until closed); pruning one a process is about to
// read costs it the computation.

// DefaultStoreMaxBytes is the store's size bound when none is set: room
// for the certificates of a few graphs of 10⁶ nodes (one is ~30 MB) and
// every forecast, small beside a user cache directory.
const DefaultStoreMaxBytes int64 = 1 << 30

// StoreSubdir is the store's directory in the user cache directory.
const StoreSubdir = "graphcloak/store"

// DefaultStoreDir is the store's directory by default, StoreSubdir in the
// user cache directory ($XDG_CACHE_HOME or ~/.cache on Linux); "" when
// there is none.
func DefaultStoreDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, filepath.FromSlash(StoreSubdir))
}

// StoreEntry is one file of the store.
type StoreEntry struct {
	Name  string    `json:"name"`
	Bytes int64     `json:"bytes"`
	Used  time.Time `json:"used"`
}

// Entries lists the store's files, least recently used first (a
// temporary file being written is not one).
func (w *WorkCache) Entries() ([]StoreEntry, error) {
	if w == nil || w.Dir == "" {
		return nil, nil
	}
	des, err := os.ReadDir(w.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []StoreEntry
	for _, de := range des {
		if !de.Type().IsRegular() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, StoreEntry{Name: de.Name(), Bytes: fi.Size(), Used: fi.ModTime()})
	}
	slices.SortFunc(out, func(a, b StoreEntry) int {
		if c := a.Used.Compare(b.Used); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// maxBytes is the store's bound (DefaultStoreMaxBytes when unset).
func (w *WorkCache) maxBytes() int64 {
	if w.MaxBytes > 0 {
		return w.MaxBytes
	}
	return DefaultStoreMaxBytes
}

// staleTemp is the age past which a temporary file is a crashed writer's
// (a write takes seconds): Prune removes it.
const staleTemp = time.Hour

// removeStaleTemps removes the temporary files of writers that died
// before their rename.
func (w *WorkCache) removeStaleTemps() {
	des, _ := os.ReadDir(w.Dir)
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), ".") || !strings.Contains(de.Name(), ".tmp") {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
			_ = os.Remove(filepath.Join(w.Dir, de.Name()))
		}
	}
}

// Prune removes the least recently used files until the store holds at
// most max bytes (0 empties it), and returns what it removed; a crashed
// writer's temporary file goes too. A file another process removed first
// is not an error.
func (w *WorkCache) Prune(max int64) ([]StoreEntry, error) {
	if w != nil && w.Dir != "" {
		w.removeStaleTemps()
	}
	es, err := w.Entries()
	if err != nil {
		return nil, err
	}
	var total int64
	for _, e := range es {
		total += e.Bytes
	}
	var gone []StoreEntry
	for _, e := range es {
		if total <= max {
			break
		}
		if err := os.Remove(filepath.Join(w.Dir, e.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return gone, err
		}
		total -= e.Bytes
		gone = append(gone, e)
	}
	return gone, nil
}

// Trim prunes the store to its bound (MaxBytes), logging what it removed;
// commands call it after they keep something.
func (w *WorkCache) Trim() {
	if w == nil || w.Dir == "" {
		return
	}
	gone, err := w.Prune(w.maxBytes())
	if err != nil {
		w.logger().Warn("could not prune the work store", "dir", w.Dir, "error", err)
	}
	for _, e := range gone {
		w.logger().Info("pruned from the work store (least recently used, over its bound)", "file", e.Name, "bytes", e.Bytes, "maxBytes", w.maxBytes())
	}
}

// touch marks a file used now (the store prunes the least recently used
// first); a file that is not there is left so.
func touch(path string) {
	now := time.Now()
	_ = os.Chtimes(path, now, now)
}

// StoreReport is what the store holds, and what a prune removed: what
// "graphcloak cache" prints.
type StoreReport struct {
	Dir      string       `json:"dir"`
	MaxBytes int64        `json:"maxBytes"`
	Files    int          `json:"files"`
	Bytes    int64        `json:"bytes"`
	Removed  []StoreEntry `json:"removed,omitempty"`
	Entries  []StoreEntry `json:"entries,omitempty"`
	// Freed is the size of the files removed.
	Freed int64 `json:"-"`
}

// Report is the store's files (Entries) and their size.
func (w *WorkCache) Report() (StoreReport, error) {
	es, err := w.Entries()
	if err != nil {
		return StoreReport{}, err
	}
	r := w.report(es)
	r.Entries = es
	return r, nil
}

// PruneReport prunes the store to max bytes (Prune) and reports what it
// removed and what is left, without listing it.
func (w *WorkCache) PruneReport(max int64) (StoreReport, error) {
	gone, err := w.Prune(max)
	if err != nil {
		return StoreReport{}, err
	}
	es, err := w.Entries()
	if err != nil {
		return StoreReport{}, err
	}
	r := w.report(es)
	r.Removed = gone
	for _, e := range gone {
		r.Freed += e.Bytes
	}
	return r, nil
}

// report counts es, the store's files.
func (w *WorkCache) report(es []StoreEntry) StoreReport {
	r := StoreReport{Dir: w.Dir, MaxBytes: w.MaxBytes, Files: len(es)}
	for _, e := range es {
		r.Bytes += e.Bytes
	}
	return r
}
