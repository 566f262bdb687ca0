package main

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
)

// releaseSpec turns release's flags into the job's spec without reading
// a file, refusing combinations with the exit code a user gets.
func TestReleaseSpec(t *testing.T) {
	at := time.Date(2026, 11, 21, 6, 30, 0, 0, time.UTC)
	valueProperty := func(c *config.Config) { c.Projection.ValueProperty = "raw" }
	epochAuto := func(c *config.Config) { c.Privacy.Epoch = "auto" }
	for _, c := range []struct {
		name     string
		opts     releaseOptions
		cfg      func(*config.Config)
		wantExit int
		check    func(job.ReleaseSpec) bool
	}{
		{"a file graph with readings", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "0"}, nil, exitOK,
			func(s job.ReleaseSpec) bool {
				return !s.Neo4j && s.Out == "rel.json" && s.Smooth == 0 && !s.SmoothAuto
			}},
		{"smoothing auto", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "auto"}, nil, exitOK,
			func(s job.ReleaseSpec) bool { return s.SmoothAuto }},
		{"epoch auto from the slot", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", slot: time.Hour,
			now: func() time.Time { return at }}, epochAuto, exitOK,
			func(s job.ReleaseSpec) bool { return s.Epoch == "2026-11-21T06:00Z" }},
		{"a property on Neo4j", releaseOptions{graph: "neo4j"}, valueProperty, exitOK,
			func(s job.ReleaseSpec) bool { return s.Neo4j && s.Projection.ValueProperty == "raw" }},
		{"no graph", releaseOptions{values: "r.csv", out: "rel.json"}, nil, exitUsage, nil},
		{"readings and a property", releaseOptions{graph: "neo4j", values: "r.csv"}, valueProperty, exitUsage, nil},
		{"a property off Neo4j", releaseOptions{graph: "karate", out: "rel.json"}, valueProperty, exitUsage, nil},
		{"no release file", releaseOptions{graph: "karate", values: "r.csv"}, nil, exitUsage, nil},
		{"release file on stdout", releaseOptions{graph: "karate", values: "r.csv", out: "-"}, nil, exitUsage, nil},
		{"bad smoothing", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "-1"}, nil, exitBadInput, nil},
		{"bad slot", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", slot: time.Second}, epochAuto, exitBadInput, nil},
		{"negative forecast trials", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", forecastTrials: -1}, nil, exitBadInput, nil},
	} {
		opts := c.opts
		opts.g = testGlobals(t, c.cfg)
		s, err := releaseSpec(&opts)
		if got := exitCode(err); got != c.wantExit {
			t.Errorf("%s: exit %d (%v), want %d", c.name, got, err, c.wantExit)
			continue
		}
		if c.check != nil && !c.check(s) {
			t.Errorf("%s: spec %+v", c.name, s)
		}
	}
}
