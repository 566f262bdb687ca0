package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/demo"
)

// DemoWithTradeOff prints the demo's story and ranking (Demo), then how to
// see the privacy/accuracy trade-off and the picture drawn, if any. name
// says how the reader calls ε (demo.ParamEpsilon).
func DemoWithTradeOff(out io.Writer, run *demo.Result, name func(errkind.Param) string) error {
	if err := Demo(out, run); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nThis is one draw of a random mechanism: the exact node of this one-unit source stays private\n"+
		"(a heavier source's would not: docs/guarantee.md, \"Heavy sources\"), and the probabilities show\n"+
		"how much the private values still say about its community. Rerun, or raise %s (less\n"+
		"noise, less privacy) to see the trade-off.\n", name(demo.ParamEpsilon))
	if run.Summary.Plot != "" {
		fmt.Fprintf(out, "picture: %s\n", run.Summary.Plot)
	}
	return nil
}
