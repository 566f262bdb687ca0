package inputfiles

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// Each use of a path against each kind of path: the problem named, or
// nil; a refusal is bad input.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.csv")
	if err := os.WriteFile(file, []byte("a,b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Skipf("no unix socket: %v", err)
	}
	defer l.Close()
	missing := filepath.Join(dir, "none")
	noDir := filepath.Join(dir, "no-dir", "x")
	for _, c := range []struct {
		path    string
		use     PathUse
		problem string // "": usable
	}{
		{file, ReadPath, ""},
		{file, WritePath, ""},
		{file, KeptPath, ""},
		{file, DirPath, "is a file; give a directory to create"},
		{dir, ReadPath, "is a directory; give a file"},
		{dir, WritePath, "is a directory; give a file"},
		{dir, DirPath, ""},
		{missing, ReadPath, "no such file"},
		{noDir, ReadPath, "no such file (the directory " + filepath.Dir(noDir) + " does not exist)"},
		{missing, WritePath, ""},
		{missing, KeptPath, ""},
		{missing, DirPath, ""},
		{noDir, WritePath, "the directory " + filepath.Dir(noDir) + " does not exist (graphcloak creates no directories)"},
		{noDir, DirPath, "the directory " + filepath.Dir(noDir) + " does not exist (graphcloak creates no directories)"},
		{filepath.Join(file, "x"), ReadPath, "no such file (the directory " + file + " does not exist)"},
		{socket, ReadPath, "cannot be read (no such device or address)"},
		{socket, WritePath, ""},
	} {
		err := CheckPath(c.path, c.use)
		if c.problem == "" {
			if err != nil {
				t.Errorf("CheckPath(%s, %d) = %v, want nil", c.path, c.use, err)
			}
			continue
		}
		var pe *PathError
		if !errors.As(err, &pe) || pe.Problem != c.problem || pe.Path != c.path || err.Error() != c.problem || errkind.Of(err) != errkind.BadInput {
			t.Errorf("CheckPath(%s, %d) = %v, want %q (bad input)", c.path, c.use, err, c.problem)
		}
	}
}
