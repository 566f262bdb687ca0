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
)

// A keyed file ledger's hash chain stops anyone without the key from
// editing it, but not from putting back an older copy of the whole file
// (a rollback: the charges made since vanish). The high-water mark
// detects that: beside the ledger key, where whoever can write the ledger
// need not be able to write, a small file records how many entries the
// ledger had and the seal of the chain at that point, under a MAC keyed
// by the ledger key:
//
//	{ledger, entries, head, mac = HMAC(K_hwm, ledger ‖ entries ‖ head)}
//
// A read that finds fewer entries than the mark, or another chain up to
// the mark, is refused as a rollback (*LedgerCorruptError). The mark is
// written after the ledger (so a crash in between leaves it behind, never
// ahead: it never raises a false alarm); a charge whose mark cannot be
// written still stands and the mark lags until the next write succeeds.
// What the mark cannot see: a rollback of both the ledger and the mark
// (whoever can write beside the key holds the key), and a ledger whose
// key file and mark were replaced together.

// HighWaterMarkPath is the mark of the ledger at ledgerPath kept beside
// the key file keyFile: keyFile + ".hwm-" + 16 hex digits of the ledger's
// absolute path (one mark per ledger, so ledgers sharing a key never
// share a mark).
func HighWaterMarkPath(keyFile, ledgerPath string) string {
	abs, err := filepath.Abs(ledgerPath)
	if err != nil {
		abs = ledgerPath
	}
	h := sha256.Sum256([]byte(abs))
	return keyFile + ".hwm-" + hex.EncodeToString(h[:8])
}

type highWaterMark struct {
	Ledger  string `json:"ledger"`
	Entries int    `json:"entries"`
	Head    string `json:"head"`
	MAC     string `json:"mac"`
}

func (l *FileLedger) markMAC(m highWaterMark) string {
	h := hmac.New(sha256.New, subkey(l.key, "ledger-high-water-mark"))
	fmt.Fprintf(h, "%q/%d/%s", m.Ledger, m.Entries, m.Head)
	return hex.EncodeToString(h.Sum(nil))
}

func (l *FileLedger) absPath() string {
	if abs, err := filepath.Abs(l.path); err == nil {
		return abs
	}
	return l.path
}

// readMark returns the ledger's high-water mark (nil when there is none
// or the ledger keeps none).
func (l *FileLedger) readMark() (*highWaterMark, error) {
	if l.key == nil || l.mark == "" {
		return nil, nil
	}
	data, err := os.ReadFile(l.mark)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("privacy: read the ledger's high-water mark: %w", err)
	}
	var m highWaterMark
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(&m) != nil || !hmac.Equal([]byte(l.markMAC(m)), []byte(m.MAC)) || m.Ledger != l.absPath() {
		return nil, &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("its high-water mark %s does not verify under the ledger key", l.mark)}
	}
	return &m, nil
}

// checkMark refuses a verified chain f that lies behind, or beside, the
// high-water mark: a rollback to an older copy, or another chain.
func (l *FileLedger) checkMark(f *ledgerFile) error {
	m, err := l.readMark()
	if err != nil || m == nil {
		return err
	}
	if len(f.Entries) < m.Entries {
		return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("rolled back: it has %d entries, but its high-water mark (%s) says %d were written — an older copy was put back and charges are missing",
			len(f.Entries), l.mark, m.Entries)}
	}
	prefix := *f
	prefix.Entries = f.Entries[:m.Entries]
	if l.head(&prefix) != m.Head {
		return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf("its first %d entries are not the chain its high-water mark (%s) recorded", m.Entries, l.mark)}
	}
	return nil
}

// writeMark records f (just written) as the high-water mark.
func (l *FileLedger) writeMark(f *ledgerFile) error {
	if l.key == nil || l.mark == "" {
		return nil
	}
	m := highWaterMark{Ledger: l.absPath(), Entries: len(f.Entries), Head: f.Head}
	m.MAC = l.markMAC(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(l.mark, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("privacy: the ledger's high-water mark: %w", err)
	}
	return nil
}
