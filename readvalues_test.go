package graphcloak

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/csvin"
)

// A headerless readings file whose first row is bad used to be
// taken silently as a header (dropping a reading); keys starting with '#'
// or a space could not be addressed; a byte-order mark is ignored.
func TestReadValuesHeaderRules(t *testing.T) {
	good := []struct {
		in     string
		header csvin.Header
		want   map[string]float64
	}{
		{"node,value\na,1\nb,2\n", csvin.HeaderAuto, map[string]float64{"a": 1, "b": 2}},
		{"\ufeffNode_ID,Reading\r\na,1\r\n", csvin.HeaderAuto, map[string]float64{"a": 1}},
		{"a,1\nb,2\n", csvin.HeaderAuto, map[string]float64{"a": 1, "b": 2}},
		{"\"#a\",1\n\" b\",2\n", csvin.HeaderAuto, map[string]float64{"#a": 1, " b": 2}},
		{"sensor,celsius\na,1\n", csvin.HeaderYes, map[string]float64{"a": 1}},
	}
	for _, tc := range good {
		got, err := readValues(strings.NewReader(tc.in), tc.header)
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in     string
		header csvin.Header
	}{
		{"a,oops\nb,2\n", csvin.HeaderAuto},        // bad first row is not a header
		{"where,celsius\na,1\n", csvin.HeaderAuto}, // unrecognised names
		{"node,value\na,1\n", csvin.HeaderNo},      // explicit: no header
	} {
		_, err := readValues(strings.NewReader(tc.in), tc.header)
		var ve *ValuesError
		if !errors.As(err, &ve) || ve.Line != 1 {
			t.Errorf("%q: got %v, want an error on line 1", tc.in, err)
		}
	}
}

// The exported explicit choice: with a header the first row is skipped
// whatever it holds, without one it is a reading (a named header row is
// then refused on line 1).
func TestReadValuesHeaderChoice(t *testing.T) {
	got, err := ReadValuesHeader(strings.NewReader("a,1\nb,2\n"), true)
	if err != nil || !maps.Equal(got, map[string]float64{"b": 2}) {
		t.Errorf("header: got %v, %v; want only b", got, err)
	}
	got, err = ReadValuesHeader(strings.NewReader("a,1\nb,2\n"), false)
	if err != nil || !maps.Equal(got, map[string]float64{"a": 1, "b": 2}) {
		t.Errorf("no header: got %v, %v; want a and b", got, err)
	}
	var ve *ValuesError
	if _, err := ReadValuesHeader(strings.NewReader("node,value\na,1\n"), false); !errors.As(err, &ve) || ve.Line != 1 {
		t.Errorf("no header on a named row: got %v, want an error on line 1", err)
	}
}
