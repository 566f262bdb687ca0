package main

import (
	"testing"
)

// checkRuns refuses a negative --last and a picture it cannot draw.
func TestCheckRuns(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     runsOptions
		wantExit int
		wantFlag string
	}{
		{"the newest 20", runsOptions{last: 20}, exitOK, ""},
		{"all, drawn", runsOptions{last: 0, plot: "history.svg"}, exitOK, ""},
		{"negative last", runsOptions{last: -1}, exitBadInput, "--last"},
		{"a picture format it cannot draw", runsOptions{last: 20, plot: "history.bmp"}, exitBadInput, "--plot"},
	} {
		wantRefusal(t, c.name, checkRuns(&c.opts), c.wantExit, c.wantFlag)
	}
}
