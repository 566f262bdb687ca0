package job

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

// TestOutputConflictNamesParameters: an output over a property the
// projection reads is refused in words that name both parameters, which a
// command renders as its flags.
func TestOutputConflictNamesParameters(t *testing.T) {
	flags := map[errkind.Param]string{ParamWriteProperty: "--write-property", ParamNodeKey: "--node-key-property",
		connector.ParamValueProperty: "--value-property", ParamCommunityProperty: "--communities property:…"}
	name := func(p errkind.Param) string { return flags[p] }
	for _, c := range []struct {
		p    connector.Projection
		want string
	}{
		{connector.Projection{NodeKeyProperty: "x"}, `--write-property "x" is the node key property (--node-key-property)`},
		{connector.Projection{ValueProperty: "x"}, `--write-property "x" is the raw readings (--value-property)`},
		{connector.Projection{CommunityProperty: "x"}, `--write-property "x" is the communities read (--communities property:…)`},
	} {
		err := checkOutputs(c.p, nil, map[errkind.Param]string{ParamWriteProperty: "x"}, nil)
		if err == nil {
			t.Fatalf("%+v: writing x accepted", c.p)
		}
		if got := errkind.Render(err, name); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want it to contain %q", c.p, got, c.want)
		}
	}
}
