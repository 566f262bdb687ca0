package main

import (
	"os"
	"path/filepath"
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

// serve's localisation keeps its verdict's forecast in the work store, as
// plain locate does (job.TestLocateAgainReusesTheVerdictForecast: a
// second slot reads it): the store --cache-dir names, none with
// --cache-dir none. Before, serve's locate had no store and every slot
// simulated the forecast again.
func TestServeLocateUsesTheWorkStore(t *testing.T) {
	values := filepath.Join(t.TempDir(), "readings.csv")
	if err := os.WriteFile(values, []byte("node,value\n1,0.5\n2,0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		cacheDir, want string
	}{{dir, dir}, {"none", ""}} {
		opts := serveOptions{graph: "neo4j", schedule: "@every 1h", values: values, communities: "leiden", resolution: 1, forecastTrials: 20, cacheDir: c.cacheDir}
		opts.g = testGlobals(t, nil)
		steps, err := serveSteps(&opts)
		if err != nil {
			t.Fatalf("--cache-dir %s: %v", c.cacheDir, err)
		}
		got := ""
		if steps.Locate != nil && steps.Locate.Store != nil {
			got = steps.Locate.Store.Dir
		}
		if steps.Locate == nil || got != c.want {
			t.Errorf("--cache-dir %s: serve's locate keeps its forecast in %q, want %q", c.cacheDir, got, c.want)
		}
	}
}
