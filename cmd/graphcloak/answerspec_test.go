package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestPrivateAnswerRefusals: bad combinations exit with a usage or input
// error before anything is charged.
func TestPrivateAnswerRefusals(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	readings, ledger := filepath.Join(dir, "readings.csv"), filepath.Join(dir, "l.json")
	for _, args := range [][]string{
		{"locate", "--graph", "karate", "--private-answer", "--ledger", ledger, "--epsilon", "1"},                               // no readings
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--release", rel, "--ledger", ledger},         // released values
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--answer-cap", "99"},     // cap
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--epsilon", "-1"},        // ε
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--plot", dir + "/x.png"}, // no per-node picture
	} {
		before, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json")
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 2 && code != 3 {
			t.Errorf("%v: exit %d, want 2 or 3: %s", args, code, stderr)
		}
		if after, _, _ := runPipelineCLI(t, context.Background(), nil, "budget", "--ledger", ledger, "-o", "json"); after != before {
			t.Errorf("%v charged the ledger", args)
		}
	}
}

// validAnswer is locate --private-answer on karate's readings with
// locate's defaults; the readings file is never read by the check.
func validAnswer() locateOptions {
	return locateOptions{graph: "karate", communities: "leiden", resolution: 1, plotValue: "posterior", mode: "write",
		forecastTrials: 100, privateAnswer: answerOptions{enabled: true, values: "readings.csv"}}
}

// checkPrivateAnswer refuses each rule's breach with its exit code and
// flag, and reads no key: the spec's noise and ledger key stay unset.
func TestCheckPrivateAnswer(t *testing.T) {
	valueProperty := func(c *config.Config) { c.Projection.ValueProperty = "raw" }
	for _, c := range []struct {
		name     string
		edit     func(*locateOptions)
		cfg      func(*config.Config)
		wantExit int
		wantFlag string
		check    func(*job.AnswerSpec) bool
	}{
		{"readings on karate", nil, nil, exitOK, "", func(s *job.AnswerSpec) bool {
			return s.Graph == "karate" && !s.Neo4j && s.Communities == "leiden" && s.Epoch == "" && s.Epsilon == 1 &&
				s.Tau == 1 && s.Cap == 0 && s.ForecastTrials == 100 && !s.Noise.Keyed() && s.LedgerKey == nil
		}},
		{"a property on Neo4j", func(o *locateOptions) { o.graph, o.privateAnswer.values = "neo4j", "" }, valueProperty, exitOK, "",
			func(s *job.AnswerSpec) bool { return s.Neo4j && s.Graph == "neo4j" }},
		{"the mechanism's flags", func(o *locateOptions) {
			o.privateAnswer.cap, o.privateAnswer.fitTolerance, o.privateAnswer.onMismatch, o.privateAnswer.cache = 3, 0.1, "rr", "model.json"
		}, nil, exitOK, "", func(s *job.AnswerSpec) bool {
			return s.Cap == 3 && s.FitTolerance == 0.1 && s.OnMismatch == "rr" && s.CachePath == "model.json"
		}},
		{"the configured scope and epoch", nil, func(c *config.Config) { c.Privacy.Scope, c.Privacy.Epoch = "building-7", "e1" }, exitOK, "",
			func(s *job.AnswerSpec) bool { return s.Scope == "building-7" && s.Epoch == "e1" }},
		{"keys named, not read", nil, func(c *config.Config) {
			c.Privacy.KeyFile, c.Privacy.LedgerKeyFile = filepath.Join("no", "such.key"), filepath.Join("no", "ledger.key")
		}, exitOK, "", func(s *job.AnswerSpec) bool { return !s.Noise.Keyed() && s.LedgerKey == nil }},

		{"no graph", func(o *locateOptions) { o.graph = "" }, nil, exitUsage, "--graph", nil},
		{"a release file", func(o *locateOptions) { o.released = "release.json" }, nil, exitUsage, "--private-answer", nil},
		{"a released property", func(o *locateOptions) { o.releasedProperty = "noisy" }, nil, exitUsage, "--private-answer", nil},
		{"a release run", func(o *locateOptions) { o.releaseRun = "latest" }, nil, exitUsage, "--private-answer", nil},
		{"no readings", func(o *locateOptions) { o.privateAnswer.values = "" }, nil, exitUsage, "--values", nil},
		{"readings and a property", func(o *locateOptions) { o.graph = "neo4j" }, valueProperty, exitUsage, "--value-property", nil},
		{"a property off Neo4j", func(o *locateOptions) { o.privateAnswer.values = "" }, valueProperty, exitUsage, "--value-property", nil},
		{"a per-node file", func(o *locateOptions) { o.out = "nodes.csv" }, nil, exitUsage, "--out", nil},
		{"a picture", func(o *locateOptions) { o.plot = "graph.png" }, nil, exitUsage, "--plot", nil},
		{"two sources", nil, func(c *config.Config) { c.Recovery.Sources = 2 }, exitUsage, "--sources", nil},
		{"negative forecast trials", func(o *locateOptions) { o.forecastTrials = -1 }, nil, exitBadInput, "--forecast-trials", nil},
		{"unknown communities", func(o *locateOptions) { o.communities = "spectral" }, nil, exitUsage, "--communities", nil},
		{"no resolution", func(o *locateOptions) { o.resolution = 0 }, nil, exitBadInput, "--resolution", nil},
		{"negative cap", func(o *locateOptions) { o.privateAnswer.cap = -1 }, nil, exitBadInput, "--answer-cap", nil},
		{"cap too large", func(o *locateOptions) { o.privateAnswer.cap = 17 }, nil, exitBadInput, "--answer-cap", nil},
		{"no ε", nil, func(c *config.Config) { c.Privacy.Epsilon = 0 }, exitBadInput, "--epsilon", nil},
		{"no τ", nil, func(c *config.Config) { c.Privacy.Tau = 0 }, exitBadInput, "--tau", nil},
	} {
		opts := validAnswer()
		if c.edit != nil {
			c.edit(&opts)
		}
		opts.g = testGlobals(t, c.cfg)
		spec, err := checkPrivateAnswer(&opts)
		if !wantRefusal(t, c.name, err, c.wantExit, c.wantFlag) {
			continue
		}
		if c.check != nil && !c.check(spec) {
			t.Errorf("%s: spec %+v", c.name, spec)
		}
	}
}

// answerSpecWithKeys reads the keys checkPrivateAnswer names: the noise
// key makes the noise keyed, the ledger key authenticates the answer
// cache; a missing key is refused before anything is connected.
func TestAnswerSpecWithKeys(t *testing.T) {
	dir := t.TempDir()
	key, err := privacy.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "noise.key")
	if err := privacy.WriteKeyFile(keyFile, key); err != nil {
		t.Fatal(err)
	}
	opts := validAnswer()
	opts.privateAnswer.cache = filepath.Join(dir, "model.json")
	opts.g = testGlobals(t, func(c *config.Config) { c.Privacy.KeyFile, c.Privacy.LedgerKeyFile = keyFile, keyFile })
	spec, err := answerSpecWithKeys(&opts)
	if err != nil || !spec.Noise.Keyed() || spec.LedgerKey == nil {
		t.Fatalf("keys: spec %+v, %v", spec, err)
	}
	opts.g = testGlobals(t, func(c *config.Config) { c.Privacy.KeyFile = filepath.Join(dir, "none.key") })
	if _, err := answerSpecWithKeys(&opts); err == nil {
		t.Error("a missing noise key was accepted")
	}
	opts.g = testGlobals(t, func(c *config.Config) { c.Privacy.Epsilon = 0 })
	if _, err := answerSpecWithKeys(&opts); exitCode(err) != exitBadInput {
		t.Errorf("no ε: exit %d (%v), want %d", exitCode(err), err, exitBadInput)
	}
}

// answerSpec carries the flags and configuration into the job's spec.
func TestAnswerSpec(t *testing.T) {
	g := testGlobals(t, func(c *config.Config) {
		c.Privacy.Tau, c.Privacy.Alpha, c.Privacy.Epsilon, c.Privacy.Delta = 0.2, 2, 0.5, 1e-6
		c.Privacy.Scope, c.Privacy.Epoch, c.Write.RandomSeed, c.Recovery.Estimator = "s", "e", 9, "greedy"
	})
	opts := &locateOptions{g: g, graph: "neo4j", communities: "gds:leiden", forecastTrials: 5, dryRun: true,
		privateAnswer: answerOptions{cap: 2, fitTolerance: 0.2, onMismatch: "rr", cache: "m.json"}}
	s := answerSpec(opts)
	if s.Graph != "neo4j" || !s.Neo4j || s.Communities != "gds:leiden" || s.Database != "neo4j" ||
		s.Tau != 0.2 || s.Alpha != 2 || s.Epsilon != 0.5 || s.Delta != 1e-6 || s.Scope != "s" || s.Epoch != "e" ||
		s.Seed != 9 || s.Estimator != "greedy" || s.Cap != 2 || s.FitTolerance != 0.2 || s.OnMismatch != "rr" ||
		s.CachePath != "m.json" || s.ForecastTrials != 5 || !s.DryRun || s.Software == "" || s.Lease <= 0 {
		t.Errorf("spec %+v", s)
	}
}
