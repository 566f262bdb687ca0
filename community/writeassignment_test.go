package community

import (
	"bytes"
	"testing"
)

// What WriteAssignment writes, ReadAssignment reads back.
func TestWriteAssignmentRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAssignment(&b, []string{"a", "b", "c"}, []int{0, 1, 0}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "node,community\na,0\nb,1\nc,0\n"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
	byKey, err := ReadAssignment(&b)
	if err != nil {
		t.Fatal(err)
	}
	if byKey["a"] != "0" || byKey["b"] != "1" || byKey["c"] != "0" {
		t.Errorf("read back %v", byKey)
	}
}
