package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
)

// pendingFile is an output file opened before any work: a temporary file
// next to the destination (so an unwritable --out fails at once), renamed
// into place by Commit and removed by Abort (a no-op after Commit).
type pendingFile struct {
	path string
	tmp  *os.File
}

func createPending(path string) (*pendingFile, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &pendingFile{path: path, tmp: tmp}, nil
}

// WriteCSV writes rows, then renames the file into place (mode 0644).
func (p *pendingFile) WriteCSV(rows [][]string) error {
	w := csv.NewWriter(p.tmp)
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	if err := p.tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := p.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.tmp.Name(), p.path); err != nil {
		return err
	}
	p.tmp = nil
	return nil
}

// Abort removes the temporary file unless the output was committed.
func (p *pendingFile) Abort() {
	if p != nil && p.tmp != nil {
		p.tmp.Close()
		os.Remove(p.tmp.Name())
	}
}
