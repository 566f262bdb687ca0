package inputfiles

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/errkind"
)

// TestReadingsFrom: no path, no reader; "-" reads the readings from stdin
// when called; a file is read again at every call (serve's slots), under
// the header it was given; a file that is gone is bad input naming the
// readings, a header row read under "no" a *graphcloak.ValuesError.
func TestReadingsFrom(t *testing.T) {
	if ReadingsFrom(nil, "", "auto") != nil {
		t.Error("a reader without a path")
	}
	got, err := ReadingsFrom(strings.NewReader("node,value\na,1.5\nb,2\n"), "-", "auto")()
	if err != nil || !maps.Equal(got, map[string]float64{"a": 1.5, "b": 2}) {
		t.Errorf("stdin: readings %v, %v", got, err)
	}
	path := filepath.Join(t.TempDir(), "readings.csv")
	read, named := ReadingsFrom(nil, path, "yes"), ReadingsFrom(nil, path, "no")
	for i, tc := range []struct {
		csv  string
		want map[string]float64
	}{
		{"sensor,celsius\na,1\n", map[string]float64{"a": 1}},
		{"sensor,celsius\na,3\nb,4\n", map[string]float64{"a": 3, "b": 4}},
	} {
		if err := os.WriteFile(path, []byte(tc.csv), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := read(); err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("read %d: %v, %v; want %v", i, got, err, tc.want)
		}
		var ve *graphcloak.ValuesError
		if _, err := named(); !errors.As(err, &ve) || ve.Line != 1 {
			t.Errorf("read %d under header no: %v, want an error on line 1", i, err)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := read(); errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(err.Error(), string(ParamValues)+": ") {
		t.Errorf("a removed file: %v (kind %v), want bad input naming %s", err, errkind.Of(err), ParamValues)
	}
}
