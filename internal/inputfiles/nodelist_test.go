package inputfiles

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// A node list: spaces trimmed, blank lines and comments skipped, order
// kept; a duplicate (naming both lines), an empty list or a missing file
// is bad input.
func TestReadNodeList(t *testing.T) {
	got, err := ReadNodeList("-", strings.NewReader("# sensors\n room-1 \n\nroom-2\n#room-3\nroom-0\n"))
	if want := []string{"room-1", "room-2", "room-0"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ReadNodeList = %q, %v; want %q", got, err, want)
	}
	for in, want := range map[string]string{
		"a\nb\na\n":  `node "a" on lines 1 and 3`,
		"# none\n\n": "lists no node keys",
	} {
		_, err := ReadNodeList("-", strings.NewReader(in))
		if errkind.Of(err) != errkind.BadInput || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), string(ParamNodes)) {
			t.Errorf("%q: %v, want bad input naming the node list and %q", in, err, want)
		}
	}
	if _, err := ReadNodeList(t.TempDir()+"/none", nil); errkind.Of(err) != errkind.BadInput {
		t.Errorf("a missing file: %v, want bad input", err)
	}
}
