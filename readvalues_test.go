package graphcloak

import (
	"errors"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A headerless readings file whose first row is bad used to be
// taken silently as a header (dropping a reading); keys starting with '#'
// or a space could not be addressed; a byte-order mark is ignored.
func TestReadValuesHeaderRules(t *testing.T) {
	good := []struct {
		in, header string
		want       map[string]float64
	}{
		{"node,value\na,1\nb,2\n", "auto", map[string]float64{"a": 1, "b": 2}},
		{"\ufeffNode_ID,Reading\r\na,1\r\n", "auto", map[string]float64{"a": 1}},
		{"a,1\nb,2\n", "auto", map[string]float64{"a": 1, "b": 2}},
		{"a,1\nb,2\n", "", map[string]float64{"a": 1, "b": 2}},
		{"\"#a\",1\n\" b\",2\n", "auto", map[string]float64{"#a": 1, " b": 2}},
		{"sensor,celsius\na,1\n", "yes", map[string]float64{"a": 1}},
	}
	for _, tc := range good {
		got, err := ReadValues(strings.NewReader(tc.in), tc.header)
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q (header %q): got %v, %v; want %v", tc.in, tc.header, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, header string }{
		{"a,oops\nb,2\n", "auto"},        // bad first row is not a header
		{"where,celsius\na,1\n", "auto"}, // unrecognised names
		{"node,value\na,1\n", "no"},      // explicit: no header
	} {
		_, err := ReadValues(strings.NewReader(tc.in), tc.header)
		var ve *ValuesError
		if !errors.As(err, &ve) || ve.Line != 1 {
			t.Errorf("%q (header %q): got %v, want an error on line 1", tc.in, tc.header, err)
		}
	}
}

// The explicit choice: with a header the first row is skipped whatever it
// holds, without one it is a reading (a named header row is then refused
// on line 1); a mode that is not the header parameter's is bad input
// naming the parameter, and nothing is read.
func TestReadValuesHeaderChoice(t *testing.T) {
	got, err := ReadValues(strings.NewReader("a,1\nb,2\n"), "yes")
	if err != nil || !maps.Equal(got, map[string]float64{"b": 2}) {
		t.Errorf("header: got %v, %v; want only b", got, err)
	}
	got, err = ReadValues(strings.NewReader("a,1\nb,2\n"), "no")
	if err != nil || !maps.Equal(got, map[string]float64{"a": 1, "b": 2}) {
		t.Errorf("no header: got %v, %v; want a and b", got, err)
	}
	var ve *ValuesError
	if _, err := ReadValues(strings.NewReader("node,value\na,1\n"), "no"); !errors.As(err, &ve) || ve.Line != 1 {
		t.Errorf("no header on a named row: got %v, want an error on line 1", err)
	}
	got, err = ReadValues(strings.NewReader("a,1\n"), "sometimes")
	if !errors.As(err, &ve) || errkind.Of(err) != errkind.BadInput || got != nil {
		t.Fatalf("header sometimes: got %v, %v; want a bad-input *ValuesError", got, err)
	}
	flag := func(p errkind.Param) string { return "--" + string(p) }
	if msg := ve.RenderText(flag); !strings.Contains(msg, "--header must be auto, yes or no") {
		t.Errorf("header sometimes: %q does not name the parameter", msg)
	}
}

// TestReadAnswerValues: for a private answer a value that is not a finite
// number, and a node without a reading, are read as NaN (a broken reading,
// outside the answer's model) instead of an error naming the node; every
// other rule is ReadValues' (a node twice, an unknown node, a bad header).
func TestReadAnswerValues(t *testing.T) {
	got, err := ReadAnswerValues(strings.NewReader("node,value\na,1\nb,nan\nc,oops\nd,-Inf\n"), "auto")
	if err != nil {
		t.Fatal(err)
	}
	if got["a"] != 1 || !math.IsNaN(got["b"]) || !math.IsNaN(got["c"]) || !math.IsNaN(got["d"]) {
		t.Errorf("read %v", got)
	}
	if _, err := ReadValues(strings.NewReader("node,value\na,1\nb,nan\n"), "auto"); err == nil {
		t.Error("ReadValues took a NaN")
	}
	for _, in := range []string{"node,value\na,1\na,2\n", "node,value\na,1\nzz\n"} {
		if _, err := ReadAnswerValues(strings.NewReader(in), "auto"); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	g, _ := laplacian.Path(3)
	y, err := AnswerValuesByKey(g, map[string]float64{g.Key(0): 1, g.Key(2): 3})
	if err != nil || y[0] != 1 || !math.IsNaN(y[1]) || y[2] != 3 {
		t.Errorf("missing reading: %v, %v", y, err)
	}
	if _, err := AnswerValuesByKey(g, map[string]float64{"nope": 1}); err == nil {
		t.Error("an unknown node was taken")
	}
}

// TestReadAnswerValuesFirstRow (review of issue 70, item 4): the sensor
// on the first data row breaks like any other — after a header, under
// --header no, and with no header under auto — and is read as NaN (or,
// where an unreadable first row cannot be told from a header, skipped, so
// that its node has no reading: NaN again), never an error naming it. On
// the merged code "node,value\na,nan\n…" was `values: line 2: node "a":
// value is not a finite number`.
func TestReadAnswerValuesFirstRow(t *testing.T) {
	for _, c := range []struct{ in, header string }{
		{"node,value\na,nan\nb,1\n", "auto"},
		{"node,value\na,oops\nb,1\n", "auto"},
		{"node,value\na,\nb,1\n", "auto"},
		{"node,value\na,Inf\nb,1\n", "yes"},
		{"a,nan\nb,1\n", "auto"},
		{"a,-inf\nb,1\n", "no"},
		{"a,oops\nb,1\n", "no"},
		{"a,oops\nb,1\n", "auto"},
	} {
		got, err := ReadAnswerValues(strings.NewReader(c.in), c.header)
		if err != nil {
			t.Errorf("%q (header %s): %v", c.in, c.header, err)
			continue
		}
		if v, ok := got["a"]; ok && !math.IsNaN(v) || got["b"] != 1 {
			t.Errorf("%q (header %s): read %v", c.in, c.header, got)
		}
	}
}
