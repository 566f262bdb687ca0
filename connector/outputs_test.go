package connector

import (
	"errors"
	"testing"
)

func TestCheckOutputs(t *testing.T) {
	p := Projection{NodeKeyProperty: "roomId", ValueProperty: "obs", CommunityProperty: "louvain"}
	read := ReadProperties(p, map[string]string{"relv": "the released values"})
	cases := []struct {
		outputs map[string]string
		bound   map[string]bool
		bad     string // the flag refused, "" when accepted
	}{
		{map[string]string{"--write-property": "graphcloak_value"}, map[string]bool{"--write-property": true}, ""},
		{map[string]string{"--write-property": "roomId"}, nil, "--write-property"},
		{map[string]string{"--write-property": "obs"}, nil, "--write-property"},
		{map[string]string{"--write-property": "louvain"}, nil, "--write-property"},
		// The run-id companion of a bound output is written too.
		{map[string]string{"--write-property": "room"}, map[string]bool{"--write-property": true}, ""},
		{map[string]string{"--write-property": "roomId_runId"}, nil, ""}, // touches no input
		{map[string]string{"--mass-property": "relv"}, nil, "--mass-property"},
		{map[string]string{"--mass-property": "a", "--rank-property": "a"}, nil, "--rank-property"},
		{map[string]string{"--mass-property": "a", "--rank-property": ""}, nil, ""},
	}
	for i, c := range cases {
		err := CheckOutputs(read, c.outputs, c.bound)
		var oe *OutputConflictError
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("case %d: %v refused: %v", i, c.outputs, err)
		case c.bad != "" && (!errors.As(err, &oe) || oe.Flag != c.bad):
			t.Errorf("case %d: %v: got %v, want %s refused", i, c.outputs, err, c.bad)
		}
	}
	// A key named like the companion of the output is refused.
	q := ReadProperties(Projection{NodeKeyProperty: "v_runId"}, nil)
	if err := CheckOutputs(q, map[string]string{"--write-property": "v"}, map[string]bool{"--write-property": true}); err == nil {
		t.Error("--write-property v with the key v_runId accepted")
	}
}
