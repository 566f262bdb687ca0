package local

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/graphcloak/graphcloak/errkind"
)

// MACKeysError reports a malformed report-MAC key file. It names the line,
// never a key.
type MACKeysError struct {
	Path   string
	Line   int
	Reason string
}

func (e *MACKeysError) Error() string {
	return fmt.Sprintf("local: report-MAC keys %s line %d: %s", e.Path, e.Line, e.Reason)
}

// Kind: bad input.
func (*MACKeysError) Kind() errkind.Kind { return errkind.BadInput }

// ReadMACKeysFile reads the collector's report-MAC keys: CSV rows
// node,reportMacKeyHex (64 hex digits), as keygen --mac-csv writes them,
// with an optional header row. The file must not be readable by group or
// others (it authenticates every sensor's reports).
func ReadMACKeysFile(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("local: report-MAC keys: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, &MACKeysError{Path: path, Reason: fmt.Sprintf("the file has mode %04o: it must not be accessible by group or others (chmod 600)", st.Mode().Perm())}
	}
	return ReadMACKeys(f, path)
}

// ReadMACKeys reads report-MAC keys from r (ReadMACKeysFile's format);
// name names r in errors.
func ReadMACKeys(r io.Reader, name string) (map[string][]byte, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.ReuseRecord = true
	keys := map[string][]byte{}
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &MACKeysError{Path: name, Line: line, Reason: "not a CSV row node,reportMacKeyHex"}
		}
		key, herr := hex.DecodeString(rec[1])
		if herr != nil || len(key) != 32 {
			if line == 1 && len(rec[1]) != 64 { // a header row
				continue
			}
			return nil, &MACKeysError{Path: name, Line: line, Reason: "the key is not 64 hex digits"}
		}
		if rec[0] == "" {
			return nil, &MACKeysError{Path: name, Line: line, Reason: "the node key is empty"}
		}
		if _, dup := keys[rec[0]]; dup {
			return nil, &MACKeysError{Path: name, Line: line, Reason: fmt.Sprintf("node %q has a second key", rec[0])}
		}
		keys[rec[0]] = key
	}
	if len(keys) == 0 {
		return nil, &MACKeysError{Path: name, Line: 1, Reason: "no keys"}
	}
	return keys, nil
}

// writeKeysCSV creates path (mode 0600, never overwriting) with the rows
// node,HEADER of each node's key: the format ReadMACKeys reads for the
// report-MAC keys. The CSV's bytes are cleared once written.
func writeKeysCSV(path, header string, nodes []string, key func(node string) []byte) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	rows := [][]string{{"node", header}}
	for _, n := range nodes {
		rows = append(rows, []string{n, hex.EncodeToString(key(n))})
	}
	err := w.WriteAll(rows) // a bytes.Buffer never fails; WriteAll flushes
	clear(rows)
	if err == nil {
		err = writeSecretFile(path, buf.Bytes())
	}
	clear(buf.Bytes())
	return err
}

// writeSecretFile creates path (O_EXCL, mode 0600), writes data and fsyncs
// it; on failure it removes the file.
func writeSecretFile(path string, data []byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}
