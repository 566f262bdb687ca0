package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
)

// Journal file format (JSON Lines, append-only, one file per epoch,
// <releaseId>.journal in the journal directory):
//
//	{"kind":"graphcloak.journal","version":1,"releaseId":…,"scope":…,"epoch":…,"order":"<sha256 of the order>"}
//	{"kind":"graphcloak.report",…}          one line per accepted report, as accepted
//	{"kind":"graphcloak.journal-close","closedAt":"…"}   once, when the epoch is closed
//
// A line is acknowledged only after the file is fsynced past it. A last
// line without its newline is a write torn by a crash — never
// acknowledged — and is cut off when the journal is opened again; any
// other line that does not parse is corruption and refused.
const (
	journalKind      = "graphcloak.journal"
	journalCloseKind = "graphcloak.journal-close"
	journalVersion   = 1
)

type journalHeader struct {
	Kind      string `json:"kind"`
	Version   int    `json:"version"`
	ReleaseID string `json:"releaseId"`
	Scope     string `json:"scope"`
	Epoch     string `json:"epoch"`
	Order     string `json:"order"`
}

type journalClose struct {
	Kind     string    `json:"kind"`
	ClosedAt time.Time `json:"closedAt"`
}

// JournalError reports a journal that is not this epoch's or is corrupt.
type JournalError struct {
	Path   string
	Reason string
}

func (e *JournalError) Error() string { return fmt.Sprintf("local: journal %s: %s", e.Path, e.Reason) }

// Kind: a journal of another order, or a corrupt one, is bad input.
func (*JournalError) Kind() errkind.Kind { return errkind.BadInput }

// JournalBusyError reports a journal held by another live collector.
type JournalBusyError struct{ Path string }

func (e *JournalBusyError) Error() string {
	return fmt.Sprintf("local: journal %s is held by another collector (one collector per epoch)", e.Path)
}

// Kind: busy — the same call succeeds once the other collector stops.
func (*JournalBusyError) Kind() errkind.Kind { return errkind.Busy }

// journal is the append-only file of one epoch. Appends are serialised by
// the caller; sync is a group commit: a caller waits for one fsync that
// covers everything appended before it started.
type journal struct {
	path    string
	f       *os.File
	lock    *os.File
	written atomic.Uint64 // bytes appended
	synced  atomic.Uint64 // bytes known durable
	syncMu  sync.Mutex
	fsyncs  atomic.Uint64
	// syncHook, when set (tests), runs before each fsync; an error it
	// returns fails the sync.
	syncHook func() error
}

// journalPath is the journal file of releaseID in dir.
func journalPath(dir, releaseID string) string { return filepath.Join(dir, releaseID+".journal") }

// openJournal locks and opens the journal of hdr in dir, creating it
// (header line, fsynced with its directory) when missing, and returns the
// lines after the header (torn tail cut off).
func openJournal(dir string, hdr journalHeader) (*journal, [][]byte, error) {
	path := journalPath(dir, hdr.ReleaseID)
	lock, err := os.OpenFile(filepath.Join(dir, "."+hdr.ReleaseID+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, &JournalError{Path: path, Reason: fmt.Sprintf("cannot be locked: %v", err)}
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil, &JournalBusyError{Path: path}
		}
		return nil, nil, &JournalError{Path: path, Reason: fmt.Sprintf("cannot be locked: %v", err)}
	}
	j := &journal{path: path, lock: lock}
	lines, err := j.open(dir, hdr)
	if err != nil {
		j.close()
		return nil, nil, err
	}
	return j, lines, nil
}

func (j *journal) open(dir string, hdr journalHeader) ([][]byte, error) {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, j.create(dir, hdr)
	}
	if err != nil {
		return nil, &JournalError{Path: j.path, Reason: err.Error()}
	}
	good := bytes.LastIndexByte(data, '\n') + 1 // a torn last line was never acknowledged
	lines := bytes.Split(data[:good], []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) == 0 {
		// Torn inside the header: the journal was never acknowledged to anyone.
		if err := os.Remove(j.path); err != nil {
			return nil, &JournalError{Path: j.path, Reason: err.Error()}
		}
		return nil, j.create(dir, hdr)
	}
	var got journalHeader
	if err := strictUnmarshal(lines[0], &got); err != nil || got.Kind != journalKind || got.Version != journalVersion {
		return nil, &JournalError{Path: j.path, Reason: "does not start with a journal header"}
	}
	if got != hdr {
		return nil, &JournalError{Path: j.path, Reason: fmt.Sprintf("belongs to another order (release %s, scope %q, epoch %q, order %.12s…), not this one (release %s, scope %q, epoch %q, order %.12s…)",
			got.ReleaseID, got.Scope, got.Epoch, got.Order, hdr.ReleaseID, hdr.Scope, hdr.Epoch, hdr.Order)}
	}
	if good < len(data) {
		if err := os.Truncate(j.path, int64(good)); err != nil {
			return nil, &JournalError{Path: j.path, Reason: fmt.Sprintf("cannot cut off its torn last line: %v", err)}
		}
	}
	if j.f, err = os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return nil, &JournalError{Path: j.path, Reason: err.Error()}
	}
	if err := j.f.Sync(); err != nil { // what was read is durable before anything is acknowledged on it
		return nil, &JournalError{Path: j.path, Reason: err.Error()}
	}
	j.written.Store(uint64(good))
	j.synced.Store(uint64(good))
	return lines[1:], nil
}

func (j *journal) create(dir string, hdr journalHeader) error {
	line, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &JournalError{Path: j.path, Reason: err.Error()}
	}
	j.f = f
	if _, err := f.Write(append(line, '\n')); err != nil {
		return &JournalError{Path: j.path, Reason: err.Error()}
	}
	if err := f.Sync(); err != nil {
		return &JournalError{Path: j.path, Reason: err.Error()}
	}
	if err := syncDir(dir); err != nil {
		return &JournalError{Path: j.path, Reason: err.Error()}
	}
	n := uint64(len(line) + 1)
	j.written.Store(n)
	j.synced.Store(n)
	return nil
}

// append writes b (whole lines) at the end; the caller serialises
// appends. It returns the offset sync must reach for b to be durable.
func (j *journal) append(b []byte) (uint64, error) {
	if _, err := j.f.Write(b); err != nil {
		return 0, err
	}
	return j.written.Add(uint64(len(b))), nil
}

// sync returns once the journal is durable up to offset upto: one fsync
// covers every append made before it starts (group commit).
func (j *journal) sync(upto uint64) error {
	if j.synced.Load() >= upto {
		return nil
	}
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.synced.Load() >= upto {
		return nil
	}
	w := j.written.Load()
	if j.syncHook != nil {
		if err := j.syncHook(); err != nil {
			return err
		}
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.fsyncs.Add(1)
	j.synced.Store(w)
	return nil
}

func (j *journal) close() {
	if j.f != nil {
		j.f.Close()
	}
	if j.lock != nil {
		j.lock.Close() // releases the flock
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown
// fields and trailing data.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// readLines calls each with the non-blank lines of r (numbered from 1,
// blank lines counted) of at most max bytes without the newline; a longer
// line is passed as nil with tooLong set, its bytes skipped.
func readLines(r io.Reader, max int, each func(lineNo int, line []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if e := each(n, line, tooLong); e != nil {
				return e
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func readLine(br *bufio.Reader, max int) ([]byte, bool, error) {
	var line []byte
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		return line, tooLong, err
	}
}
