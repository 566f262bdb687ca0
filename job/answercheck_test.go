package job

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// A private answer's inputs are refused (usage) for each rule's breach,
// naming the parameters at fault, and accepted otherwise.
func TestAnswerInputsCheck(t *testing.T) {
	flag := func(p errkind.Param) string {
		if p == connector.ParamValueProperty {
			return "--value-property"
		}
		if p == ParamOut {
			return "--out"
		}
		return "--" + string(p)
	}
	file := AnswerInputs{Values: "r.csv", Sources: 1}
	stored := AnswerInputs{ValueProperty: "raw", Neo4j: true}
	for _, c := range []struct {
		name string
		in   AnswerInputs
		want string // "": accepted
	}{
		{"readings from a file", file, ""},
		{"readings from a property on Neo4j", stored, ""},
		{"released values", AnswerInputs{Released: true, Values: "r.csv"}, "--private-answer reads raw readings (--values or --value-property), not released values"},
		{"no readings", AnswerInputs{}, "--private-answer needs the raw readings: --values FILE (or -) or, on --graph neo4j, --value-property P"},
		{"both", AnswerInputs{Values: "r.csv", ValueProperty: "raw", Neo4j: true}, "give either --values or --value-property, not both"},
		{"a property off Neo4j", AnswerInputs{ValueProperty: "raw"}, "--value-property needs --graph neo4j"},
		{"per-node results", AnswerInputs{Values: "r.csv", PerNode: true}, "--out and --plot draw per-node results"},
		{"two sources", AnswerInputs{Values: "r.csv", Sources: 2}, "--private-answer publishes one community: --sources must be 1"},
	} {
		err := c.in.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && (errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, flag), c.want)):
			t.Errorf("%s: %v (%v), want a usage error %q", c.name, err, errkind.Of(err), c.want)
		}
	}
}
