package privacy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// A keyed file ledger's hash chain stops anyone without the key from
// editing it, but not from putting back an older copy of the whole file
// (a rollback: the charges made since vanish), from deleting it
// (CreateFileLedger would then start an empty one), or from putting another file in
// its place. The high-water mark detects these. In the key file's
// directory (FileLedgerOptions.HighWaterMarkDir), where whoever can write
// the ledger need not be able to write, one small file per chain records
// the chain, the file it was last written to, how many entries it had and
// its seal there, under a MAC keyed by the ledger key:
//
//	graphcloak-ledger-<key id>-<chain id>.hwm
//	{version: 2, chain, ledger, entries, head, mac = HMAC(K_hwm, version ‖ chain ‖ ledger ‖ entries ‖ head)}
//
// where chain is the chain's first link (a MAC of its header, unique per
// ledger: it holds the creation time), the ids are MACs of the key and of
// the chain (so the name says nothing to whoever lacks the key), and
// ledger is the ledger's resolved path: absolute, every symbolic link and
// ".." followed as the kernel follows them (resolvePath).
//
// What the mark is bound to, and why. The mark is found from the chain
// itself, so every spelling of the ledger's path — through a symlinked
// directory, relative, with ".." — and every copy of the file at any path
// reaches the same mark: a copy with fewer entries (a rollback, in place
// or elsewhere) or another continuation of the chain (a fork: a copy
// charged separately, which would spend the budget twice) is refused.
// Where the file is missing, not a keyed chain, or another chain, the
// marks are looked up by path: every mark of this key in the directory
// whose ledger is this resolved path. A deleted ledger whose mark survives
// is refused (CreateFileLedger does not start an empty one in its place), as
// are a version 1 file or an unkeyed chain (forgeable by whoever can write
// the file) and another keyed chain where a chain was written. Device and
// inode numbers are not used: every write of the ledger replaces the file
// by a rename, so its inode changes with every charge, and a file deleted
// and created again may be given the same inode — a mark keyed on it
// would be lost by honest writes and inherited by a stranger.
//
// The mark is written after the ledger (so a crash in between leaves it
// behind, never ahead: it never raises a false alarm). Before anything is
// written, the mark's directory must be writable and its name free of
// anything but a regular file; a keyed ledger whose mark cannot be written
// refuses to charge (*HighWaterMarkError), and CreateFileLedger refuses to
// create or change the ledger. Should the mark fail after the ledger was
// written (a full disk), the charge stands and the error is returned, so
// that nothing is released on it.
//
// What the mark cannot see: a rollback of both the ledger and the mark
// (whoever can write beside the key holds the key), and a ledger whose key
// and marks were replaced together. A mark written by graphcloak before
// this scheme (KEYFILE.hwm-<hash of the path as typed>) is still checked
// for the path it names, and removed once the chain's own mark is written.

const (
	markPrefix = "graphcloak-ledger-"
	markSuffix = ".hwm"
	markUse    = "ledger-high-water-mark-v2"
	legacyUse  = "ledger-high-water-mark"
)

// HighWaterMarkError reports a keyed ledger whose high-water mark cannot
// be written: nothing is charged (unless Charged), nothing is released.
type HighWaterMarkError struct {
	Ledger  string // the ledger as given
	Mark    string // the mark file
	Charged bool   // the charge was recorded before the mark failed
	Err     error
}

func (e *HighWaterMarkError) Error() string { return e.text().Error() }

// RenderText is its text naming parameters as name does.
func (e *HighWaterMarkError) RenderText(name func(errkind.Param) string) string {
	return e.text().RenderText(name)
}

func (e *HighWaterMarkError) text() errkind.Renderer {
	what := "nothing was charged or released"
	if e.Charged {
		what = "the charge was recorded in the ledger, but nothing is released on it"
	}
	dir := filepath.Dir(e.Mark)
	return errkind.Errorf("privacy: ledger %s: cannot write its high-water mark %s (%w); without the mark a rolled-back or deleted ledger would go unnoticed, so %s: "+
		"make the directory %s writable by graphcloak (and only by the operator), or put the ledger key in a directory that is and give that file as %s (config privacy.ledgerKeyFile)",
		e.Ledger, e.Mark, e.Err, what, dir, ParamLedgerKey).(errkind.Renderer)
}

// Kind: the operator fixes the installation.
func (*HighWaterMarkError) Kind() errkind.Kind { return errkind.BadInput }

func (e *HighWaterMarkError) Unwrap() error { return e.Err }

type highWaterMark struct {
	Version int    `json:"version"`
	Chain   string `json:"chain"`
	Ledger  string `json:"ledger"`
	Entries int    `json:"entries"`
	Head    string `json:"head"`
	MAC     string `json:"mac"`
}

// legacyMark is a mark written before version 2: KEYFILE.hwm-<16 hex
// digits of SHA-256 of the ledger's absolute path as typed>.
type legacyMark struct {
	Ledger  string `json:"ledger"`
	Entries int    `json:"entries"`
	Head    string `json:"head"`
	MAC     string `json:"mac"`
}

// markAt is a verified mark and the file it was read from.
type markAt struct {
	path   string
	mark   highWaterMark
	legacy bool // a legacyMark: Chain is empty
}

func (m markAt) describe() string {
	return fmt.Sprintf("its high-water mark %s says a keyed hash chain of %d entries was written to %s", m.path, m.mark.Entries, m.mark.Ledger)
}

// marked reports whether l keeps a high-water mark.
func (l *FileLedger) marked() bool { return l.key != nil && l.markDir != "" }

func (l *FileLedger) markHMAC(use, format string, a ...any) string {
	h := hmac.New(sha256.New, subkey(l.key, use))
	fmt.Fprintf(h, format, a...)
	return hex.EncodeToString(h.Sum(nil))
}

func (l *FileLedger) markMAC(m highWaterMark) string {
	return l.markHMAC(markUse, "mac/%d/%q/%q/%d/%q", m.Version, m.Chain, m.Ledger, m.Entries, m.Head)
}

// markKeyPrefix starts the name of every mark of this key.
func (l *FileLedger) markKeyPrefix() string {
	return markPrefix + l.markHMAC(markUse, "key")[:16] + "-"
}

// markPath is the mark file of the chain whose first link is chain.
func (l *FileLedger) markPath(chain string) string {
	return filepath.Join(l.markDir, l.markKeyPrefix()+l.markHMAC(markUse, "chain/%q", chain)[:32]+markSuffix)
}

// chainID is f's first link: it names f's mark.
func (l *FileLedger) chainID(f *ledgerFile) (string, error) {
	return l.genesis(&f.ledgerHeader)
}

func (l *FileLedger) markCorrupt(path, why string) error {
	return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("its high-water mark %s %s", path, why)}
}

// readMarkFile reads and verifies the mark at path (nil when there is
// none).
func (l *FileLedger) readMarkFile(path string) (*highWaterMark, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if st, serr := os.Lstat(path); err != nil && serr == nil && !st.Mode().IsRegular() {
		return nil, &HighWaterMarkError{Ledger: l.path, Mark: path, Err: fmt.Errorf("%s is not a regular file", path)}
	}
	if err != nil {
		return nil, fmt.Errorf("privacy: read the ledger's high-water mark: %w", err)
	}
	var m highWaterMark
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&m) != nil || m.Version != 2 || !hmac.Equal([]byte(l.markMAC(m)), []byte(m.MAC)) {
		return nil, l.markCorrupt(path, "does not verify under the ledger key")
	}
	if filepath.Base(l.markPath(m.Chain)) != filepath.Base(path) {
		return nil, l.markCorrupt(path, "is another chain's mark under this one's name")
	}
	return &m, nil
}

// readLegacy reads a version 1 mark; ok is false when it is not one that
// verifies under this key (another key's mark may share the directory).
func (l *FileLedger) readLegacy(path string) (m legacyMark, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return m, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&m) != nil {
		return m, false
	}
	return m, hmac.Equal([]byte(l.markHMAC(legacyUse, "%q/%d/%s", m.Ledger, m.Entries, m.Head)), []byte(m.MAC))
}

// marksHere returns every mark of this key in the mark directory whose
// ledger is l's resolved path: the chains written here. A mark of this
// key that does not verify is an error; another key's marks are skipped.
func (l *FileLedger) marksHere() ([]markAt, error) {
	if !l.marked() {
		return nil, nil
	}
	entries, err := os.ReadDir(l.markDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("privacy: read the ledger's high-water marks: %w", err)
	}
	prefix := l.markKeyPrefix()
	var out []markAt
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(l.markDir, name)
		switch {
		case strings.HasPrefix(name, prefix) && strings.HasSuffix(name, markSuffix):
			m, err := l.readMarkFile(path)
			if err != nil {
				return nil, err
			}
			if m != nil && m.Ledger == l.file {
				out = append(out, markAt{path: path, mark: *m})
			}
		case !strings.HasPrefix(name, ".") && isLegacyMarkName(name):
			m, ok := l.readLegacy(path)
			if !ok {
				continue
			}
			if r, err := resolvePath(m.Ledger); (err == nil && r == l.file) || m.Ledger == l.file {
				out = append(out, markAt{path: path, mark: highWaterMark{Ledger: m.Ledger, Entries: m.Entries, Head: m.Head}, legacy: true})
			}
		}
	}
	return out, nil
}

// isLegacyMarkName reports whether name is KEYFILE.hwm-<16 hex digits>.
func isLegacyMarkName(name string) bool {
	i := strings.LastIndex(name, ".hwm-")
	if i <= 0 || len(name)-i-5 != 16 {
		return false
	}
	_, err := hex.DecodeString(name[i+5:])
	return err == nil
}

// checkPrefix refuses a verified chain f that lies behind, or beside,
// mark m: a rollback to an older copy, or another chain.
func (l *FileLedger) checkPrefix(f *ledgerFile, m markAt) error {
	if len(f.Entries) < m.mark.Entries {
		return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("rolled back: it has %d entries, but its high-water mark (%s) says %d were written — an older copy was put back and charges are missing",
			len(f.Entries), m.path, m.mark.Entries)}
	}
	prefix := *f
	prefix.Entries = f.Entries[:m.mark.Entries]
	if l.head(&prefix) != m.mark.Head {
		return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("its first %d entries are not the chain its high-water mark (%s) recorded — a copy charged separately (a fork) or another chain", m.mark.Entries, m.path)}
	}
	return nil
}

// checkMark checks a verified keyed chain f read from l against its own
// mark (found from the chain, whatever the path) and against every mark
// of a chain written at l's path.
func (l *FileLedger) checkMark(f *ledgerFile) error {
	if !l.marked() {
		return nil
	}
	chain, err := l.chainID(f)
	if err != nil {
		return err
	}
	path := l.markPath(chain)
	m, err := l.readMarkFile(path)
	if err != nil {
		return err
	}
	if m != nil {
		if err := l.checkPrefix(f, markAt{path: path, mark: *m}); err != nil {
			return err
		}
	}
	here, err := l.marksHere()
	if err != nil {
		return err
	}
	for _, h := range here {
		switch {
		case h.legacy:
			if err := l.checkPrefix(f, h); err != nil {
				return err
			}
		case h.mark.Chain != chain:
			return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("another keyed chain than the one written here: %s — the ledger was replaced and its charges are missing", h.describe())}
		}
	}
	return nil
}

// refuseIfMarked refuses what is in place of a keyed chain that a mark
// says was written at l's path: nothing (deleted), a version 1 file or
// an unkeyed chain (what), which nobody may migrate or use in its stead.
func (l *FileLedger) refuseIfMarked(what string) error {
	here, err := l.marksHere()
	if err != nil || len(here) == 0 {
		return err
	}
	h := here[0]
	if what == "" {
		return corruptf(l.path, "deleted: %s, and its charges are missing (if it was moved, run %s on its new path first, which moves the mark; "+
			"to start an empty ledger here on purpose, forgetting every charge of the old one, remove %s)", h.describe(), ParamCreateLedger, h.path)
	}
	return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("%s, but %s: this file is an older copy or a forgery", what, h.describe())}
}

// markWritable refuses, before anything is written, a keyed ledger whose
// mark for chain could not be written: its name must hold nothing but a
// regular file and its directory must take a new file.
func (l *FileLedger) markWritable(chain string) error {
	if !l.marked() {
		return nil
	}
	path := l.markPath(chain)
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return &HighWaterMarkError{Ledger: l.path, Mark: path, Err: fmt.Errorf("%s is not a regular file", path)}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &HighWaterMarkError{Ledger: l.path, Mark: path, Err: err}
	}
	return l.markDirWritable(path)
}

// markDirWritable refuses a keyed ledger whose mark directory does not
// take a new file (mark names the mark in messages).
func (l *FileLedger) markDirWritable(mark string) error {
	if !l.marked() {
		return nil
	}
	tmp, err := os.CreateTemp(l.markDir, "."+filepath.Base(mark)+".probe-*")
	if err != nil {
		return &HighWaterMarkError{Ledger: l.path, Mark: mark, Err: err}
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// writeMark records f (just written to l's path) as its chain's mark, and
// removes the version 1 marks it supersedes.
func (l *FileLedger) writeMark(f *ledgerFile) error {
	if !l.marked() {
		return nil
	}
	chain, err := l.chainID(f)
	if err != nil {
		return err
	}
	m := highWaterMark{Version: 2, Chain: chain, Ledger: l.file, Entries: len(f.Entries), Head: f.Head}
	m.MAC = l.markMAC(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	path := l.markPath(chain)
	if err := writeFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return &HighWaterMarkError{Ledger: l.path, Mark: path, Charged: true, Err: err}
	}
	if here, err := l.marksHere(); err == nil {
		for _, h := range here {
			if h.legacy {
				os.Remove(h.path)
			}
		}
	}
	return nil
}

// resolvePath is the file p names: absolute, with every symbolic link —
// in a directory or the file itself — and every ".." followed as the
// kernel follows them (not lexically: "link/.." is the parent of link's
// target). A file that does not exist yet is its resolved directory plus
// its name; a symbolic link to a missing file is an error.
func resolvePath(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = wd + string(filepath.Separator) + p // not filepath.Join, which removes ".." lexically
	}
	r, err := filepath.EvalSymlinks(p)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	i := strings.LastIndexByte(p, filepath.Separator)
	dir, base := p[:i], p[i+1:]
	if dir == "" {
		dir = string(filepath.Separator)
	}
	if base == "" || base == "." || base == ".." {
		return "", fmt.Errorf("%s does not name a file", p)
	}
	if _, err := os.Lstat(p); err == nil {
		return "", fmt.Errorf("%s is a symbolic link to a missing file", p)
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, base), nil
}
