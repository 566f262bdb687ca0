package errkind

import (
	"errors"
	"fmt"
	"testing"
)

// TestSentence: the package and function prefixes go, wherever they
// are in the chain and however many are stacked; parameters are named
// as name says; other text, including colons, stays.
func TestSentence(t *testing.T) {
	flag := func(p Param) string { return "--" + string(p) }
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("privacy: Calibrate: config: x: laplacian: y"), "x: y"},
		{errors.New("graphcloak: connector: the server refused"), "the server refused"},
		{fmt.Errorf("read edges.csv: %w", errors.New("laplacian: line 3: bad weight")), "read edges.csv: line 3: bad weight"},
		{Errorf("%v must be positive", Param("tau")), "--tau must be positive"},
		{fmt.Errorf("wrapped: %w", Errorf("recovery: %v: too large", Param("sigma"))), "wrapped: --sigma: too large"},
		{errors.New("nothing to strip: config-like: words"), "nothing to strip: config-like: words"},
	} {
		if got := Sentence(c.err, flag); got != c.want {
			t.Errorf("Sentence(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
