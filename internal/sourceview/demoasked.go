package sourceview

import "github.com/graphcloak/graphcloak/internal/demo"

// DemoIfAsked draws run to path (Demo) and records the picture in its
// summary; "" draws nothing.
func DemoIfAsked(path string, run *demo.Result) error {
	if path == "" {
		return nil
	}
	if err := Demo(path, run); err != nil {
		return err
	}
	run.Summary.Plot = path
	return nil
}
