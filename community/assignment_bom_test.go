package community

import (
	"maps"
	"strings"
	"testing"
)

// A UTF-8 byte-order mark broke the community CSV (the header
// "\ufeffnode" was not recognised and became a node) while the other
// readers ignored it; quoted keys are verbatim.
func TestReadAssignmentBOM(t *testing.T) {
	got, err := ReadAssignment(strings.NewReader("\ufeffnode,community\r\na,x\r\n\"#b\",y\n"))
	want := map[string]string{"a": "x", "#b": "y"}
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}
