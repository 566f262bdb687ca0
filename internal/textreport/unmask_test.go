package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// TestUnmask: a header, then one row per node in the report's order, its
// key, value and released value in aligned columns.
func TestUnmask(t *testing.T) {
	r := &privacy.UnmaskReport{Rows: []privacy.UnmaskRow{{Key: "a", Value: 0.5, Released: 0.4375}, {Key: "room-12", Value: 1.0 / 3, Released: -2}}}
	var b bytes.Buffer
	if err := Unmask(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "KEY      VALUE         RELEASED\n" +
		"a        0.5           0.4375\n" +
		"room-12  0.3333333333  -2\n"
	if b.String() != want {
		t.Errorf("table\n%s\nwant\n%s", b.String(), want)
	}
	if strings.Count(b.String(), "\n") != 1+len(r.Rows) {
		t.Errorf("%d lines for %d rows", strings.Count(b.String(), "\n"), len(r.Rows))
	}
}
