// Package atomicfile writes a file whole or not at all: the data goes to a
// synced temporary file beside it, which is renamed over the path, so a
// reader never sees half a file and a crash leaves the old one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with mode perm by a synced temporary file in
// the same directory, renamed over path. The temporary file is removed
// when anything fails.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
