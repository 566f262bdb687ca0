package privacy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// Release file format (JSON, written atomically by WriteReleaseFile):
//
//	{
//	  "format": "graphcloak-release",
//	  "version": 1,
//	  "meta": { ReleaseMeta fields },
//	  "rows": [ {"key": "n1", "grid": 1234567, "value": 0.0011773}, … ]
//	}
//
// grid is the exact integer r_i and value = γ·r_i = r_i·2^−k. The file
// holds only public data: no true value, no key. It is what the release
// command writes for runs without a database, what a retry re-publishes,
// and what unmask reads.
const (
	releaseFormat  = "graphcloak-release"
	releaseVersion = 1
)

type releaseFile struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Meta    ReleaseMeta  `json:"meta"`
	Rows    []releaseRow `json:"rows"`
}

type releaseRow struct {
	Key   string  `json:"key"`
	Grid  int64   `json:"grid"`
	Value float64 `json:"value"`
}

// WriteReleaseFile writes rel to path atomically (temporary file, fsync,
// rename), mode 0644.
func WriteReleaseFile(path string, rel *Released) error {
	data, err := encodeRelease(rel)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o644)
}

func encodeRelease(rel *Released) ([]byte, error) {
	if err := checkReleased(rel); err != nil {
		return nil, err
	}
	f := releaseFile{Format: releaseFormat, Version: releaseVersion, Meta: rel.Meta, Rows: make([]releaseRow, len(rel.Keys))}
	for i := range rel.Keys {
		f.Rows[i] = releaseRow{Key: rel.Keys[i], Grid: rel.Grid[i], Value: rel.Values[i]}
	}
	data, err := json.MarshalIndent(&f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("privacy: write release: %w", err)
	}
	return append(data, '\n'), nil
}

// ReleaseFileError reports a release file that is malformed or
// inconsistent.
type ReleaseFileError struct {
	Path   string
	Reason string
}

func (e *ReleaseFileError) Error() string {
	return fmt.Sprintf("privacy: release file %s: %s", e.Path, e.Reason)
}

// ReadReleaseFile reads a file written by WriteReleaseFile and checks it:
// format and version, one row per key, unique keys, value = grid·2^−k.
func ReadReleaseFile(path string) (*Released, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("privacy: read release: %w", err)
	}
	rel, err := parseRelease(data)
	if err != nil {
		return nil, &ReleaseFileError{Path: path, Reason: err.Error()}
	}
	return rel, nil
}

func parseRelease(data []byte) (*Released, error) {
	var f releaseFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not valid release JSON: %v", err)
	}
	if f.Format != releaseFormat || f.Version != releaseVersion {
		return nil, fmt.Errorf("format %q version %d, want %q version %d", f.Format, f.Version, releaseFormat, releaseVersion)
	}
	rel := &Released{Meta: f.Meta, Keys: make([]string, len(f.Rows)), Grid: make([]int64, len(f.Rows)), Values: make([]float64, len(f.Rows))}
	for i, r := range f.Rows {
		rel.Keys[i], rel.Grid[i], rel.Values[i] = r.Key, r.Grid, r.Value
	}
	if err := checkReleased(rel); err != nil {
		return nil, err
	}
	return rel, nil
}

func checkReleased(rel *Released) error {
	if rel == nil {
		return fmt.Errorf("privacy: release is nil")
	}
	n := len(rel.Keys)
	if len(rel.Grid) != n || len(rel.Values) != n || rel.Meta.N != n {
		return fmt.Errorf("privacy: release has %d keys, %d grid values, %d values, meta n = %d", n, len(rel.Grid), len(rel.Values), rel.Meta.N)
	}
	seen := make(map[string]struct{}, n)
	for i, k := range rel.Keys {
		if _, dup := seen[k]; dup || k == "" {
			return fmt.Errorf("privacy: release key %d (%q) is empty or duplicated", i, k)
		}
		seen[k] = struct{}{}
		if rel.Values[i] != math.Ldexp(float64(rel.Grid[i]), -rel.Meta.GridExponent) {
			return fmt.Errorf("privacy: release row %q: value %v is not grid·2^-%d", k, rel.Values[i], rel.Meta.GridExponent)
		}
	}
	return nil
}

// PendingReleaseFile is an output path checked before anything is charged:
// PrepareReleaseFile has already created its temporary file in the target
// directory, so Commit can only fail on a full disk or I/O error.
type PendingReleaseFile struct {
	path   string
	tmp    *os.File
	unlock func()
}

// ReleaseFileBusyError reports a release file that another release kept
// locked (between its charge and its commit) for longer than the caller
// would wait.
type ReleaseFileBusyError struct {
	Path string
	Lock string // the lock file
}

func (e *ReleaseFileBusyError) Error() string {
	return fmt.Sprintf("privacy: release file %s is being written by another release (it holds %s)", e.Path, e.Lock)
}

// PrepareReleaseFile checks that a release can be written to path — not a
// directory, its directory exists and is writable — by creating the
// temporary file Commit will rename over path, and locks path (flock(2)
// on the hidden file ".NAME.lock" beside it) until Commit or Abort. Call
// it before the ledger is charged: a second release to the same path, a
// retry racing the original, waits here (busy, if not nil, is called
// once when it does) until the first has committed, and then finds the
// epoch charged and its file written, instead of the charge without the
// file. When ctx ends first the error is *ReleaseFileBusyError (deadline)
// or wraps ctx.Err(); Abort removes the temporary file when the release
// does not happen.
func PrepareReleaseFile(ctx context.Context, path string, busy func()) (*PendingReleaseFile, error) {
	if path == "" {
		return nil, &ArgumentError{Func: "PrepareReleaseFile", Param: "path", Reason: "must not be empty"}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &ReleaseFileError{Path: path, Reason: "is a directory (give a file name)"}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, &ReleaseFileError{Path: path, Reason: fmt.Sprintf("cannot be written: %v", err)}
	}
	p := &PendingReleaseFile{path: path, tmp: tmp}
	lock := LockPath(path)
	if p.unlock, err = flockWait(ctx, lock, syscall.LOCK_EX, busy); err != nil {
		p.Abort()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return nil, &ReleaseFileBusyError{Path: path, Lock: lock}
		case ctx.Err() != nil:
			return nil, fmt.Errorf("privacy: release file %s: %w", path, err)
		}
		return nil, &ReleaseFileError{Path: path, Reason: fmt.Sprintf("cannot be locked: %v", err)}
	}
	return p, nil
}

// Path returns the final path.
func (p *PendingReleaseFile) Path() string { return p.path }

// Commit writes rel (as WriteReleaseFile does) to the temporary file,
// fsyncs it, renames it over the path, fsyncs the directory and releases
// the lock.
func (p *PendingReleaseFile) Commit(rel *Released) (err error) {
	defer func() {
		if err != nil {
			p.Abort()
		}
	}()
	data, err := encodeRelease(rel)
	if err != nil {
		return err
	}
	if _, err = p.tmp.Write(data); err != nil {
		return fmt.Errorf("privacy: write %s: %w", p.path, err)
	}
	if err = commitTemp(p.tmp, p.path, 0o644); err == nil {
		p.unlock()
	}
	return err
}

// Abort removes the temporary file (no-op after Commit) and releases the
// lock.
func (p *PendingReleaseFile) Abort() {
	if p.tmp != nil {
		p.tmp.Close()
		os.Remove(p.tmp.Name())
	}
	if p.unlock != nil {
		p.unlock()
	}
}
