package inputfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// CheckReadings names a readings file that cannot be opened, or is a
// directory, as bad input of the values parameter, and reads nothing of
// one that opens (nor of standard input).
func TestCheckReadings(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(ok, []byte("not,even,csv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, want string // want "": accepted
	}{
		{"no file named", "", ""},
		{"standard input", "-", ""},
		{"a file that opens, however malformed", ok, ""},
		{"missing", filepath.Join(dir, "none.csv"), "no such file"},
		{"a directory", dir, "is a directory"},
	} {
		err := CheckReadings(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: accepted, want %q", c.name, c.want)
		case c.want != "" && (errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), c.want) ||
			!strings.HasPrefix(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }), "--values: ")):
			t.Errorf("%s: %v (kind %v), want bad input naming --values and %q", c.name, err, errkind.Of(err), c.want)
		}
	}
}
