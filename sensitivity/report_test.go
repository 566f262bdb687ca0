package sensitivity

import (
	"encoding/json"
	"math"
	"testing"
)

func TestJSONFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{1.5, "1.5"}, {math.NaN(), "null"}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`}, {0, "0"},
	} {
		b, err := json.Marshal(JSONFloat(c.v))
		if err != nil || string(b) != c.want {
			t.Errorf("%v: %s, %v; want %s", c.v, b, err, c.want)
		}
	}
}

// A report names the maximising pair by key and states the slack
// relative to Δ2 (0 for Δ2 = 0).
func TestNewReport(t *testing.T) {
	for _, c := range []struct {
		name     string
		s        Result
		edge     []any
		relative float64
	}{
		{"pair", Result{Delta2: 2, Slack: 1e-3, Edge: [2]int{3, 4}}, []any{4, 5}, 5e-4},
		{"no pair", Result{Delta2: 0, Slack: 1, Edge: [2]int{-1, -1}}, []any{}, 0},
	} {
		r := NewReport(c.s, 1, func(i int) any { return i + 1 })
		if b, _ := json.Marshal(r.Edge); string(b) != mustJSON(c.edge) {
			t.Errorf("%s: edge %s, want %s", c.name, b, mustJSON(c.edge))
		}
		if r.RelativeSlack != c.relative {
			t.Errorf("%s: relative slack %v, want %v", c.name, r.RelativeSlack, c.relative)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
