package stores

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// TestReadingsFrom: no path, no reader; "-" reads the readings from stdin
// when called, under the configured header.
func TestReadingsFrom(t *testing.T) {
	cfg := &config.Loaded{}
	cfg.Input.Header = "auto"
	st, err := Open(t.Context(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.ReadingsFrom(nil, "") != nil {
		t.Error("a reader without a path")
	}
	read := st.ReadingsFrom(strings.NewReader("node,value\na,1.5\nb,2\n"), "-")
	got, err := read()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"] != 1.5 || got["b"] != 2 {
		t.Errorf("readings %v", got)
	}
}
