package inputfiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/graphcloak/graphcloak/errkind"
)

// PathUse is how a job uses a path it was given.
type PathUse int

const (
	// ReadPath is read: it must exist and be a readable file.
	ReadPath PathUse = iota + 1
	// WritePath is written, created or replaced: its directory must exist
	// and it must not be a directory.
	WritePath
	// KeptPath is read when it exists and created otherwise (a ledger, a
	// cache): a WritePath that, when there, is a readable file.
	KeptPath
	// DirPath is a directory the job creates (the sensors' key files): its
	// parent must exist, and it must not be a file.
	DirPath
)

// PathError is a path that cannot be used as its use says. Problem says
// why without the path ("no such file", "is a directory; give a file"):
// the caller's sentence names the path once, as it was given.
type PathError struct {
	Path    string
	Use     PathUse
	Problem string
}

func (e *PathError) Error() string      { return e.Problem }
func (e *PathError) Kind() errkind.Kind { return errkind.BadInput }

// CheckPath refuses path (a *PathError) when it cannot be used as use
// says: a directory where a file is wanted, a file that is missing or
// cannot be read, an output whose directory does not exist. The deeper
// checks (a ledger's format, a key's mode) stay where the files are read.
func CheckPath(path string, use PathUse) error {
	refuse := func(problem string) error {
		return &PathError{Path: path, Use: use, Problem: problem}
	}
	st, err := os.Stat(path)
	missing := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	switch {
	case use == DirPath && err == nil && !st.IsDir():
		return refuse("is a file; give a directory to create")
	case use == DirPath && err == nil:
		return nil // the job says whether it may write there
	case err == nil && st.IsDir():
		return refuse("is a directory; give a file")
	case err == nil:
		if use == WritePath {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return refuse("cannot be read (" + errnoText(err) + ")")
		}
		f.Close()
		return nil
	case missing && use == ReadPath:
		if dir := filepath.Dir(path); !isDir(dir) {
			return refuse("no such file (the directory " + dir + " does not exist)")
		}
		return refuse("no such file")
	case missing:
		if dir := filepath.Dir(path); !isDir(dir) {
			return refuse("the directory " + dir + " does not exist (graphcloak creates no directories)")
		}
		return nil
	}
	return refuse("cannot be used (" + errnoText(err) + ")")
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// errnoText is the reason an operation on a path failed, without the path
// (the sentence names it once): "permission denied".
func errnoText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
