package main

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
)

// checkServeFlags refuses each rule's breach of serve's own flags with its
// exit code and the flag its message names.
func TestCheckServeFlags(t *testing.T) {
	for _, c := range []struct {
		name     string
		edit     func(*serveOptions)
		cfg      func(*config.Config)
		wantExit int
		wantFlag string
	}{
		{"hourly on Neo4j", nil, nil, exitOK, ""},
		{"bounded, with jitter and grace", func(o *serveOptions) { o.maxRuns, o.jitter, o.grace = 3, time.Minute, time.Minute }, nil, exitOK, ""},
		{"from a property", func(o *serveOptions) { o.values = "" }, nil, exitOK, ""}, // serveSteps checks the readings

		{"a file graph", func(o *serveOptions) { o.graph = "karate" }, nil, exitUsage, "--graph neo4j"},
		{"no schedule", func(o *serveOptions) { o.schedule = "" }, nil, exitUsage, "--schedule"},
		{"an epoch", nil, func(c *config.Config) { c.Privacy.Epoch = "e1" }, exitUsage, "--epoch"},
		{"readings from standard input", func(o *serveOptions) { o.values = "-" }, nil, exitUsage, "--values"},
		{"negative max runs", func(o *serveOptions) { o.maxRuns = -1 }, nil, exitBadInput, "--max-runs"},
		{"negative jitter", func(o *serveOptions) { o.jitter = -time.Second }, nil, exitBadInput, "--jitter"},
		{"negative grace", func(o *serveOptions) { o.grace = -time.Second }, nil, exitBadInput, "--grace"},
	} {
		opts := serveOptions{graph: "neo4j", schedule: "@every 1h", values: "readings.csv"}
		if c.edit != nil {
			c.edit(&opts)
		}
		opts.g = testGlobals(t, c.cfg)
		wantRefusal(t, c.name, checkServeFlags(&opts), c.wantExit, c.wantFlag)
	}
}
