package main

import (
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/plotting"
)

// checkPlotPath refuses a --plot file whose format cannot be written
// (exit 3) before any work is done; "" means no picture.
func checkPlotPath(path string) error {
	if path == "" {
		return nil
	}
	if err := plotting.CheckImagePath(path); err != nil {
		return errkind.Inputf("--plot: %s", err.Error())
	}
	return nil
}
