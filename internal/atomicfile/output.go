package atomicfile

import (
	"io"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/errkind"
)

// Output is an output opened before any work: standard output (Stdout),
// or a path written to a temporary file in its directory (which must
// exist: no directory is created) and renamed into place by Commit, so a
// failed or interrupted run leaves no half-written file. Abort removes
// the temporary file unless Commit succeeded.
type Output struct {
	io.Writer
	file *os.File // nil for standard output
	path string
	done bool
}

// Stdout is the output to w, standard output: Commit and Abort do nothing.
func Stdout(w io.Writer) *Output { return &Output{Writer: w, path: "-"} }

// Open opens the output to path, "-" being stdout; its errors (bad input)
// name the parameter param that gave path.
func Open(param errkind.Param, path string, stdout io.Writer) (*Output, error) {
	if path == "-" {
		return Stdout(stdout), nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, errkind.Inputf("%s %s is a directory: give a file name", param, path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, errkind.Inputf("%s %s: the directory %s does not exist (graphcloak creates no directories)", param, path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, errkind.Inputf("%s %s: %w", param, path, err)
	}
	return &Output{Writer: f, file: f, path: path}, nil
}

// Stdout reports whether the output is standard output.
func (o *Output) Stdout() bool { return o.file == nil }

// Commit closes the temporary file and renames it to the path.
func (o *Output) Commit() error {
	if o.file == nil || o.done {
		return nil
	}
	if err := o.file.Close(); err != nil {
		return err
	}
	if err := os.Rename(o.file.Name(), o.path); err != nil {
		return err
	}
	o.done = true
	return nil
}

// Abort removes the temporary file if the output was not committed.
func (o *Output) Abort() {
	if o == nil || o.file == nil || o.done {
		return
	}
	o.file.Close()
	os.Remove(o.file.Name())
}
