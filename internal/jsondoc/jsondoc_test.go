package jsondoc

import (
	"bytes"
	"math"
	"testing"
)

type Inner struct {
	B float64 `json:"b"`
}

type doc struct {
	A     float64  `json:"a"`
	Skip  string   `json:"-"`
	Empty string   `json:"empty,omitempty"`
	List  []any    `json:"list"`
	P     *float64 `json:"p"`
	Inner
}

func TestWrite(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"empty object", struct{}{}, "{\n  \"schemaVersion\": 1\n}\n"},
		{"plain", Inner{B: 2}, "{\n  \"schemaVersion\": 1,\n  \"b\": 2\n}\n"},
		{"NaN and Inf become null", doc{A: math.Inf(1), Skip: "x", List: []any{1.5, nan}, P: &nan, Inner: Inner{B: nan}},
			"{\n  \"schemaVersion\": 1,\n  \"a\": null,\n  \"b\": null,\n  \"list\": [\n    1.5,\n    null\n  ],\n  \"p\": null\n}\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.v); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.String() != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, b.String(), c.want)
		}
	}
	if err := Write(&bytes.Buffer{}, []int{1}); err == nil {
		t.Error("a document that is not an object was written")
	}
}
