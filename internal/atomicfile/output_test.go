package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// An output appears whole at Commit, never after Abort; a directory or a
// missing directory is refused as bad input naming the parameter.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	o, err := Open("out", path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write([]byte("a,1\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the file exists before Commit")
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	o.Abort() // after Commit: nothing to remove
	if b, err := os.ReadFile(path); err != nil || string(b) != "a,1\n" {
		t.Errorf("committed %q, %v", b, err)
	}
	o, err = Open("out", filepath.Join(dir, "aborted.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("after Abort the directory holds %d entries, want the committed file alone", len(entries))
	}
	var stdout bytes.Buffer
	if o, err := Open("out", "-", &stdout); err != nil || !o.Stdout() {
		t.Errorf("- is not standard output: %v", err)
	}
	for _, bad := range []string{dir, filepath.Join(dir, "missing", "x.csv")} {
		_, err := Open("out", bad, nil)
		msg := errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) })
		if errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(msg, "--out "+bad) {
			t.Errorf("%s: %q (kind %v), want bad input naming --out", bad, msg, errkind.Of(err))
		}
	}
}
