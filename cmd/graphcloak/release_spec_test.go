package main

import (
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
)

// releaseSpec turns release's flags into the job's spec without reading
// a file (none of those named here exists), refusing combinations with
// the exit code a user gets and a message naming the flag.
func TestReleaseSpec(t *testing.T) {
	at := time.Date(2026, 11, 21, 6, 30, 0, 0, time.UTC)
	valueProperty := func(c *config.Config) { c.Projection.ValueProperty = "raw" }
	epochAuto := func(c *config.Config) { c.Privacy.Epoch = "auto" }
	for _, c := range []struct {
		name     string
		opts     releaseOptions
		cfg      func(*config.Config)
		wantExit int
		wantFlag string
		check    func(job.ReleaseSpec) bool
	}{
		{"a file graph with readings", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "0"}, nil, exitOK, "",
			func(s job.ReleaseSpec) bool {
				return !s.Neo4j && s.Out == "rel.json" && s.Smooth == 0 && !s.SmoothAuto
			}},
		{"smoothing auto", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "auto"}, nil, exitOK, "",
			func(s job.ReleaseSpec) bool { return s.SmoothAuto }},
		{"epoch auto from the slot", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", slot: time.Hour,
			now: func() time.Time { return at }}, epochAuto, exitOK, "",
			func(s job.ReleaseSpec) bool { return s.Epoch == "2026-11-21T06:00Z" }},
		{"a property on Neo4j", releaseOptions{graph: "neo4j"}, valueProperty, exitOK, "",
			func(s job.ReleaseSpec) bool { return s.Neo4j && s.Projection.ValueProperty == "raw" }},
		{"no graph", releaseOptions{values: "r.csv", out: "rel.json"}, nil, exitUsage, "--graph", nil},
		{"no readings", releaseOptions{graph: "karate", out: "rel.json"}, nil, exitUsage, "--values", nil},
		{"readings and a property", releaseOptions{graph: "neo4j", values: "r.csv"}, valueProperty, exitUsage, "--values", nil},
		{"a property off Neo4j", releaseOptions{graph: "karate", out: "rel.json"}, valueProperty, exitUsage, "--value-property", nil},
		{"no release file", releaseOptions{graph: "karate", values: "r.csv"}, nil, exitUsage, "--out", nil},
		{"release file on stdout", releaseOptions{graph: "karate", values: "r.csv", out: "-"}, nil, exitUsage, "--out", nil},
		{"bad smoothing", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", smooth: "-1"}, nil, exitBadInput, "--smooth", nil},
		{"bad slot", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", slot: time.Second}, epochAuto, exitBadInput, "--slot", nil},
		{"negative forecast trials", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", forecastTrials: -1}, nil, exitBadInput, "--forecast-trials", nil},
		{"a dry run needs no release file", releaseOptions{graph: "karate", values: "r.csv", dryRun: true}, nil, exitOK, "",
			func(s job.ReleaseSpec) bool { return s.DryRun && s.Out == "" }},
		{"the privacy parameters and the certificate", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json",
			sensitivityCache: "cert.json", forecastTrials: 10, sourceMass: 2, lease: time.Minute, wait: time.Second},
			func(c *config.Config) {
				c.Privacy.Scope, c.Privacy.Epsilon, c.Privacy.Tau, c.Privacy.RefuseAtChance = "building-7", 0.5, 0.2, true
			}, exitOK, "", func(s job.ReleaseSpec) bool {
				return s.Scope == "building-7" && s.Epsilon == 0.5 && s.Tau == 0.2 && s.RefuseAtChance &&
					s.CachePath == "cert.json" && s.CertificatePath == "" && s.ForecastTrials == 10 && s.SourceMass == 2 &&
					s.Lease == time.Minute && s.Wait == time.Second && s.WriteProperty == "graphcloak_value"
			}},
		{"over the raw readings", releaseOptions{graph: "neo4j"},
			func(c *config.Config) { c.Projection.ValueProperty, c.Write.WriteProperty = "raw", "raw" }, exitUsage, "--write-property", nil},
		{"a certificate and a time budget", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json",
			sensitivityCert: "cert.json", timeBudget: time.Minute}, nil, exitUsage, "--time-budget", nil},
		{"a certificate and a cache", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json",
			sensitivityCert: "cert.json", sensitivityCache: "cache.json"}, nil, exitUsage, "--sensitivity-cache", nil},
		{"negative time budget", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json", timeBudget: -time.Second},
			nil, exitBadInput, "--time-budget", nil},
		{"refuse at chance without a forecast", releaseOptions{graph: "karate", values: "r.csv", out: "rel.json"},
			func(c *config.Config) { c.Privacy.RefuseAtChance = true }, exitBadInput, "--refuse-at-chance", nil},
	} {
		opts := c.opts
		opts.g = testGlobals(t, c.cfg)
		s, err := releaseSpec(&opts)
		if !wantRefusal(t, c.name, err, c.wantExit, c.wantFlag) {
			continue
		}
		if c.check != nil && !c.check(s) {
			t.Errorf("%s: spec %+v", c.name, s)
		}
	}
}
