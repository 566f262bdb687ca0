package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
)

// validLocate is a localisation of karate's release file with locate's
// defaults; the file is never read by checkLocate, so it need not exist.
func validLocate() locateOptions {
	return locateOptions{graph: "karate", released: "release.json", communities: "leiden", resolution: 1,
		plotValue: "posterior", mode: "write", forecastTrials: 100}
}

// checkLocate refuses each rule's breach with its exit code and flag, and
// reads no file: the release file and a communities file named here do
// not exist.
func TestCheckLocate(t *testing.T) {
	estimator := func(c *config.Config) { c.Recovery.Estimator = "magic" }
	for _, c := range []struct {
		name     string
		edit     func(*locateOptions)
		cfg      func(*config.Config)
		wantExit int
		wantFlag string
		check    func(*locateInputs) bool
	}{
		{"the defaults on a release file", nil, nil, exitOK, "", func(in *locateInputs) bool {
			s := in.spec
			return !in.isDB && !s.Neo4j && s.Graph == "karate" && s.Communities == "leiden" && !s.Stream &&
				s.ReleasedProperty == "" && s.Released == nil && s.ForecastTrials == 100 && s.Estimator == "posterior" &&
				in.commKind == "leiden" && in.commArg == ""
		}},
		{"stream mode", func(o *locateOptions) { o.mode = "stream" }, nil, exitOK, "",
			func(in *locateInputs) bool { return in.spec.Stream }},
		{"serve's empty mode writes", func(o *locateOptions) { o.mode = "" }, nil, exitOK, "",
			func(in *locateInputs) bool { return !in.spec.Stream }},
		{"communities from a file not read", func(o *locateOptions) { o.communities = "file:none.csv" }, nil, exitOK, "",
			func(in *locateInputs) bool {
				return in.commKind == "file" && in.commArg == "none.csv" && in.spec.CommunityProperty == ""
			}},
		{"neo4j reads the write property", func(o *locateOptions) { o.graph, o.released, o.sigma = "neo4j", "", 1 }, nil, exitOK, "",
			func(in *locateInputs) bool {
				return in.isDB && in.spec.Neo4j && in.spec.ReleasedProperty == "graphcloak_value"
			}},
		{"neo4j reads the property given", func(o *locateOptions) { o.graph, o.released, o.releasedProperty, o.sigma = "neo4j", "", "noisy", 0.5 },
			nil, exitOK, "", func(in *locateInputs) bool { return in.spec.ReleasedProperty == "noisy" && in.spec.Sigma == 0.5 }},
		{"neo4j reads the run's property", func(o *locateOptions) { o.graph, o.released, o.releaseRun = "neo4j", "", "latest" },
			nil, exitOK, "", func(in *locateInputs) bool { return in.spec.ReleasedProperty == "" }},
		{"communities from a property", func(o *locateOptions) {
			o.graph, o.released, o.sigma, o.communities = "neo4j", "", 1, "property:louvain"
		},
			nil, exitOK, "", func(in *locateInputs) bool {
				return in.commKind == "property" && in.commArg == "louvain" && in.spec.CommunityProperty == "louvain"
			}},

		{"bad picture format", func(o *locateOptions) { o.plot = "graph.bmp" }, nil, exitBadInput, "--plot", nil},
		{"unknown mode", func(o *locateOptions) { o.mode = "batch" }, nil, exitUsage, "--mode", nil},
		{"stream with a file", func(o *locateOptions) { o.mode, o.out = "stream", "nodes.csv" }, nil, exitUsage, "--out", nil},
		{"unknown plot value", func(o *locateOptions) { o.plotValue = "mass" }, nil, exitBadInput, "--plot-value", nil},
		{"negative forecast trials", func(o *locateOptions) { o.forecastTrials = -1 }, nil, exitBadInput, "--forecast-trials", nil},
		{"no graph", func(o *locateOptions) { o.graph = "" }, nil, exitUsage, "--graph", nil},
		{"no release file off Neo4j", func(o *locateOptions) { o.released = "" }, nil, exitUsage, "--release", nil},
		{"a file and a property", func(o *locateOptions) { o.graph, o.releasedProperty = "neo4j", "noisy" }, nil, exitUsage, "--released-property", nil},
		{"a run off Neo4j", func(o *locateOptions) { o.releaseRun = "latest" }, nil, exitUsage, "--release-run", nil},
		{"unknown communities", func(o *locateOptions) { o.communities = "infomap" }, nil, exitUsage, "--communities", nil},
		{"a property without σ", func(o *locateOptions) { o.graph, o.released, o.releasedProperty = "neo4j", "", "noisy" },
			nil, exitUsage, "--sigma", nil},
		{"a bad property name", func(o *locateOptions) { o.graph, o.released, o.releasedProperty, o.sigma = "neo4j", "", "v`x", 1 },
			nil, exitBadInput, "--released-property", nil},
		{"a negative σ", func(o *locateOptions) { o.sigma = -1 }, nil, exitBadInput, "--sigma", nil},
		{"unknown estimator", nil, estimator, exitBadInput, "--estimator", nil},
		{"mass over the values read", func(o *locateOptions) { o.graph, o.released, o.sigma = "neo4j", "", 1 },
			func(c *config.Config) { c.Write.MassProperty = "graphcloak_value" }, exitBadInput, "--mass-property", nil},
	} {
		opts := validLocate()
		if c.edit != nil {
			c.edit(&opts)
		}
		opts.g = testGlobals(t, c.cfg)
		in, err := checkLocate(&opts)
		if !wantRefusal(t, c.name, err, c.wantExit, c.wantFlag) {
			continue
		}
		if c.check != nil && !c.check(in) {
			t.Errorf("%s: inputs %+v", c.name, in)
		}
	}
}

// locateSpec carries the flags and configuration into the job's spec.
func TestLocateSpec(t *testing.T) {
	g := testGlobals(t, func(c *config.Config) { c.Write.RandomSeed = 7; c.Privacy.Tau = 0.2 })
	opts := &locateOptions{g: g, graph: "neo4j", communities: "property:louvain", sigma: 0.5, resolution: 1.5,
		forecastTrials: 10, sourceMass: 3, mode: "stream", dryRun: true}
	s := locateSpec(opts, newLocateInputs(opts.graph, opts.communities), "noisy")
	want := job.LocateSpec{Graph: "neo4j", Communities: "property:louvain", Neo4j: true, Stream: true,
		ReleasedProperty: "noisy", Sigma: 0.5, Tau: 0.2, Seed: 7, Resolution: 1.5, ForecastTrials: 10, SourceMass: 3,
		DryRun: true, CommunityProperty: "louvain"}
	if s.Graph != want.Graph || s.Communities != want.Communities || s.Neo4j != want.Neo4j || s.Stream != want.Stream ||
		s.ReleasedProperty != want.ReleasedProperty || s.Sigma != want.Sigma || s.Tau != want.Tau || s.Seed != want.Seed ||
		s.Resolution != want.Resolution || s.ForecastTrials != want.ForecastTrials || s.SourceMass != want.SourceMass ||
		s.DryRun != want.DryRun || s.CommunityProperty != want.CommunityProperty ||
		s.WriteProperty != "graphcloak_value" || s.Properties.Mass != "graphcloak_mass" || s.Database != "neo4j" {
		t.Errorf("spec %+v", s)
	}
}

// locate reads the release file after checking the flags and before
// anything else: a missing one is bad input named by --release, refused
// before the --out file is opened (whose directory does not exist either)
// and leaving nothing behind.
func TestLocateReadsTheReleaseFileFirst(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate",
		"--release", filepath.Join(dir, "none.json"), "--out", filepath.Join(dir, "no", "nodes.csv"))
	if code != exitBadInput || !strings.Contains(stderr, "--release") || strings.Contains(stderr, "--out") {
		t.Errorf("exit %d, want %d naming --release alone: %s", code, exitBadInput, stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	// A bad flag is refused before the file is read: usage, not bad input
	// (a file that is there but is no release file; a missing one is
	// refused before anything, checkPaths).
	notRelease := filepath.Join(dir, "not-a-release.json")
	if err := os.WriteFile(notRelease, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate",
		"--release", notRelease, "--mode", "batch")
	if code != exitUsage || !strings.Contains(stderr, "--mode") {
		t.Errorf("exit %d, want %d naming --mode: %s", code, exitUsage, stderr)
	}
}
