package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/privacy"
)

// A release file states its provenance (τ, α, graph fingerprint,
// tool version); locate takes τ and σ from it, refuses a contradicting
// --tau or --sigma, a bad --sigma, and another graph, naming what differs.
func TestLocateReleaseProvenance(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	relPath := releaseKarate(t, dir) // τ = 0.2
	rel, err := privacy.ReadReleaseFile(relPath)
	if err != nil {
		t.Fatal(err)
	}
	m := rel.Meta
	if m.Tau != 0.2 || !(m.Alpha > 0) || m.Graph == nil || m.Graph.Nodes != 34 || m.Graph.Edges != 78 || m.ToolVersion == "" {
		t.Fatalf("release meta lacks provenance: %+v", m)
	}

	out, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--release", relPath, "-o", "json")
	if code != 0 {
		t.Fatalf("locate: exit %d: %s", code, stderr)
	}
	var sum struct {
		Tau   float64 `json:"tau"`
		Sigma float64 `json:"sigma"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Tau != 0.2 || sum.Sigma != m.Sigma {
		t.Errorf("locate used τ = %g, σ = %g; the release has τ = 0.2, σ = %g", sum.Tau, sum.Sigma, m.Sigma)
	}
	// τ from the environment yields to the release's.
	t.Setenv("GRAPHCLOAK_PRIVACY_TAU", "1")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--release", relPath); code != 0 {
		t.Errorf("τ from the environment: exit %d: %s", code, stderr)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_TAU")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--graph", "karate", "--tau", "1"}, "contradicts the release's τ"},
		{[]string{"--graph", "karate", "--sigma", "0.1"}, "contradicts the release's σ"},
		{[]string{"--graph", "karate", "--sigma", "-1"}, "--sigma must be a positive"},
		{[]string{"--graph", "path:n=34"}, "33 edges, expected 78"},
		{[]string{"--graph", "cycle:n=34"}, "34 edges, expected 78"},
	} {
		args := append([]string{"locate", "--release", relPath}, tc.args...)
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 3 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

// unmask with another key used to exit 0 printing garbage; the
// release records the key's fingerprint and unmask refuses another key.
func TestUnmaskRefusesOtherKey(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	k1, k2 := filepath.Join(dir, "k1"), filepath.Join(dir, "k2")
	for _, k := range []string{k1, k2} {
		if _, code, err := runPrivacyCLI(t, "keygen", "--out", k); code != 0 {
			t.Fatal(err)
		}
	}
	key, _ := privacy.LoadKey(k1)
	ledger, err := privacy.CreateFileLedger(context.Background(), filepath.Join(dir, "ledger.json"), privacy.Budget{Epsilon: 4, Delta: 1e-6}, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := privacy.Release(context.Background(), privacy.ReleaseRequest{Keys: []string{"a", "b"}, Values: []float64{1, 2}, Sensitivity: 0.1,
		Epsilon: 1, Delta: 1e-6, Noise: privacy.KeyedNoise(key), Ledger: ledger, Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Meta.KeyFingerprint != key.Fingerprint() || len(rel.Meta.KeyFingerprint) != 16 {
		t.Fatalf("key fingerprint %q", rel.Meta.KeyFingerprint)
	}
	relPath := filepath.Join(dir, "release.json")
	if err := privacy.WriteReleaseFile(relPath, rel); err != nil {
		t.Fatal(err)
	}
	if _, code, err := runPrivacyCLI(t, "unmask", "--key", k1, "--release", relPath); code != 0 {
		t.Fatalf("right key: exit %d: %v", code, err)
	}
	if _, code, err := runPrivacyCLI(t, "unmask", "--key", k2, "--release", relPath); code != exitBadInput || !strings.Contains(err.Error(), "not the one the release was made with") {
		t.Errorf("other key: exit %d, %v; want exit 3", code, err)
	}
}

// Exit codes and small contract points found by trying every
// command: unknown subcommands are usage errors, --key naming a directory
// is bad input, keygen --out - is refused (a key is never printed), the
// version is available as a command and a flag.
func TestCommandContract(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"experiment", "foo"}, exitUsage},
		{[]string{"config", "foo"}, exitUsage},
		{[]string{"unmask", "--key", dir, "--release", filepath.Join(dir, "r.json")}, exitBadInput},
		{[]string{"keygen", "--out", "-"}, exitUsage},
		{[]string{"version"}, exitOK},
		{[]string{"--version"}, exitOK},
	} {
		if _, code, err := runPrivacyCLI(t, tc.args...); code != tc.code {
			t.Errorf("%q: exit %d (%v), want %d", tc.args, code, err, tc.code)
		}
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`keygen --out - created a file named "-"`)
	}
	out, _, _ := runPrivacyCLI(t, "-o", "json", "version")
	var v struct {
		buildinfo.Version
		SchemaVersion int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.SamplerVersion != privacy.SamplerVersion || v.SchemaVersion != 1 {
		t.Errorf("version JSON %q: %v", out, err)
	}
	help, _, _ := runPrivacyCLI(t, "keygen", "--help")
	if strings.Contains(help, "--noise-key") {
		t.Error("keygen --help names --noise-key, which does not exist")
	}
}

// One configuration path: sensitivity took τ only from its own
// flag ("--graph needs --tau" with privacy.tau set in the file or the
// environment); calibrate validated GRAPHCLOAK_PRIVACY_EPSILON but never
// used it; config show listed --community-property, which nothing reads.
func TestOneConfigurationPath(t *testing.T) {
	isolateConfig(t)
	tauOf := func(args ...string) float64 {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"sensitivity", "--graph", "karate", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		var r struct{ Tau float64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Tau
	}
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("privacy:\n  tau: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := tauOf("--config", file); got != 2 {
		t.Errorf("τ from the config file: %g, want 2", got)
	}
	t.Setenv("GRAPHCLOAK_PRIVACY_TAU", "3")
	if got := tauOf("--config", file); got != 3 {
		t.Errorf("τ from the environment over the file: %g, want 3", got)
	}
	if got := tauOf("--config", file, "--tau", "0.5"); got != 0.5 {
		t.Errorf("τ from the flag over everything: %g, want 0.5", got)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_TAU")

	sigma := func() float64 {
		t.Helper()
		out, code, err := runPrivacyCLI(t, "calibrate", "--sensitivity", "1", "--delta", "1e-5", "-o", "json")
		if code != 0 {
			t.Fatalf("calibrate: exit %d: %v", code, err)
		}
		var r struct{ Sigma float64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Sigma
	}
	t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", "1")
	s1 := sigma()
	t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", "4")
	if s4 := sigma(); !(s4 < s1) {
		t.Errorf("GRAPHCLOAK_PRIVACY_EPSILON ignored: σ(ε=4) = %g, σ(ε=1) = %g", s4, s1)
	}
	os.Unsetenv("GRAPHCLOAK_PRIVACY_EPSILON")

	out, _, _ := runPrivacyCLI(t, "config", "show")
	if strings.Contains(out, "community-property") || strings.Contains(out, "communityProperty") {
		t.Errorf("config show lists community-property, which no command reads:\n%s", out)
	}
}

// Terminal and JSON errors: errors under -o json are one JSON
// object on stderr (they were plain text); messages carry no package or
// function names ("privacy: Calibrate: "); --quiet and --log-level silence
// the INFO lines every command wrote.
func TestErrorsAndLogging(t *testing.T) {
	isolateConfig(t)
	run := func(args ...string) (string, string, int) {
		var out, errb strings.Builder
		code := runArgs(context.Background(), args, &out, &errb)
		return out.String(), errb.String(), code
	}
	_, stderr, code := run("calibrate", "--sensitivity", "-1", "-o", "json")
	var doc struct {
		SchemaVersion int
		Error         struct {
			Message, Kind string
			ExitCode      int
		}
	}
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil || code != exitBadInput || doc.SchemaVersion != 1 ||
		doc.Error.Kind != "bad-input" || doc.Error.ExitCode != exitBadInput || doc.Error.Message == "" {
		t.Errorf("-o json error: exit %d, stderr %q (%v)", code, stderr, err)
	}
	_, stderr, _ = run("calibrate", "--sensitivity", "-1")
	if !strings.HasPrefix(stderr, "graphcloak: ") || strings.Contains(stderr, "privacy:") || strings.Contains(stderr, "Calibrate:") {
		t.Errorf("error names a package or function: %q", stderr)
	}
	if msg := errorMessage(errorString("privacy: Calibrate: config: x: laplacian: y")); msg != "x: y" {
		t.Errorf("errorMessage = %q", msg)
	}
	dir := t.TempDir()
	_, stderr, code = run("keygen", "--out", filepath.Join(dir, "k1"))
	_, quiet, qcode := run("sensitivity", "--graph", "karate", "--quiet")
	_, errOnly, ecode := run("sensitivity", "--graph", "karate", "--log-level", "error")
	if code != 0 || qcode != 0 || ecode != 0 || quiet != "" || errOnly != "" {
		t.Errorf("--quiet / --log-level error still wrote %q / %q (exit %d %d %d; %s)", quiet, errOnly, code, qcode, ecode, stderr)
	}
	if _, _, code := run("sensitivity", "--graph", "karate", "--log-level", "loud"); code != exitBadInput && code != exitUsage {
		t.Errorf("--log-level loud: exit %d", code)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// Parsing: an edge list with a from,to header used to gain two
// nodes (a second component, another Δ2) and exit 0; an unrecognised
// header above numeric rows is refused; --header (or input.header) decides.
func TestEdgeListHeaderCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	nodes := func(file string, args ...string) (int, int) {
		t.Helper()
		out, code, _ := runPrivacyCLI(t, append([]string{"sensitivity", "--graph", "file:" + file, "-o", "json"}, args...)...)
		if code != 0 {
			return 0, code
		}
		var r struct {
			Nodes int `json:"nodeCount"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r.Nodes, code
	}
	fromTo := filepath.Join(dir, "from-to.csv")
	os.WriteFile(fromTo, []byte("from,to\na,b\nb,c\n"), 0o600)
	if n, code := nodes(fromTo); n != 3 || code != 0 {
		t.Errorf("from,to header: %d nodes (exit %d), want 3", n, code)
	}
	xy := filepath.Join(dir, "xy.csv")
	os.WriteFile(xy, []byte("x,y\n1,2\n2,3\n"), 0o600)
	if _, code := nodes(xy); code != exitBadInput {
		t.Errorf("unrecognised header: exit %d, want 3", code)
	}
	if n, _ := nodes(xy, "--header", "yes"); n != 3 {
		t.Errorf("--header yes: %d nodes, want 3", n)
	}
	// Read as an edge, the row x,y puts string keys beside integers: refused
	// as load refuses them (laplacian.CheckKeyTypes), not two more nodes.
	if n, code := nodes(xy, "--header", "no"); code != exitBadInput {
		t.Errorf("--header no: %d nodes (exit %d), want the mixed keys refused (exit 3)", n, code)
	}
	t.Setenv("GRAPHCLOAK_INPUT_HEADER", "yes")
	if n, _ := nodes(xy); n != 3 {
		t.Errorf("GRAPHCLOAK_INPUT_HEADER=yes: %d nodes, want 3", n)
	}
}

// Secrets: a group/world-readable config file holding the Neo4j
// password was accepted silently (a 0644 key file is refused); a password
// in the URI query string was echoed in an error; --config KEYFILE echoed
// digits of the key.
func TestSecretsInConfig(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("neo4j:\n  password: \"hunter2-secret\"\n"), 0o644)
	os.Chmod(cfg, 0o644)
	_, code, err := runPrivacyCLI(t, "config", "show", "--config", cfg)
	if code != exitBadInput || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("0644 config with a password: exit %d, %v; want exit 3 asking for chmod 600", code, err)
	}
	os.Chmod(cfg, 0o600)
	if _, code, err := runPrivacyCLI(t, "config", "show", "--config", cfg); code != 0 {
		t.Errorf("0600 config: exit %d, %v", code, err)
	}

	var out, errb strings.Builder
	code = runArgs(context.Background(), []string{"sensitivity", "--graph", "neo4j", "--uri", "neo4j://localhost:1?password=hunter2-secret"}, &out, &errb)
	if code == 0 || strings.Contains(errb.String(), "hunter2") {
		t.Errorf("URI query password: exit %d, stderr %q", code, errb.String())
	}

	key := filepath.Join(dir, "noise.key")
	if _, code, err := runPrivacyCLI(t, "keygen", "--out", key); code != 0 {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(key)
	errb.Reset()
	code = runArgs(context.Background(), []string{"config", "show", "--config", key}, &out, &errb)
	for i := 0; i+6 <= 64; i++ {
		if strings.Contains(errb.String(), string(raw[i:i+6])) {
			t.Fatalf("--config KEYFILE echoes key digits: %q", errb.String())
		}
	}
	if code != exitBadInput && code != exitUsage {
		t.Errorf("--config KEYFILE: exit %d", code)
	}
}

// snakeKeys returns the object keys in v that are not camelCase.
func snakeKeys(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.ContainsAny(k, "_- ") {
				*out = append(*out, path+"."+k)
			}
			snakeKeys(e, path+"."+k, out)
		}
	case []any:
		for _, e := range x {
			snakeKeys(e, path+"[]", out)
		}
	}
}

// JSON contract: locate's report mixed no_source, top90_nodes
// and total_mass with camelCase, called PROBABILITY "share", and listed
// internal indices as top90_nodes. Every command's JSON is camelCase and
// names nodes by key.
func TestJSONCamelCaseAndKeys(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	docs := map[string][]string{
		"locate":      {"locate", "--graph", "karate", "--release", rel},
		"sensitivity": {"sensitivity", "--graph", "karate"},
		"calibrate":   {"calibrate", "--sensitivity", "1"},
		"budget":      {"budget", "--ledger", filepath.Join(dir, "l.json")},
		"version":     {"version"},
		"config":      {"config", "show"},
	}
	for name, args := range docs {
		out, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "-o", "json")...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m, ok := v.(map[string]any); !ok || m["schemaVersion"] != 1.0 || !strings.HasPrefix(out, "{\n  \"schemaVersion\": 1") {
			t.Errorf("%s: document does not start with schemaVersion 1: %.80s", name, out)
		}
		var bad []string
		snakeKeys(v, name, &bad)
		if len(bad) > 0 {
			t.Errorf("%s: keys not in camelCase: %v", name, bad)
		}
		if name != "locate" {
			continue
		}
		var loc struct {
			Report struct {
				Top90Nodes  []string
				Communities []struct{ Probability float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &loc); err != nil {
			t.Fatalf("top90Nodes are not node keys: %v", err)
		}
		if len(loc.Report.Top90Nodes) == 0 || loc.Report.Top90Nodes[0] != "1" || loc.Report.Communities[0].Probability <= 0 {
			t.Errorf("report %+v: want node keys (the source, karate node \"1\", first) and probabilities", loc.Report)
		}
	}
}

// budget --init --ledger /nonexistent/x.json created /nonexistent/.
func TestNoImplicitDirectories(t *testing.T) {
	isolateConfig(t)
	missing := filepath.Join(t.TempDir(), "nonexistent")
	_, code, err := runPrivacyCLI(t, "budget", "--init", "--ledger", filepath.Join(missing, "x.json"), "--epsilon-total", "1", "--delta-total", "1e-6")
	if code != exitBadInput {
		t.Errorf("exit %d (%v), want 3", code, err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("budget --init created the directory")
	}
}

// Shell completion completes the values of -o, --graph,
// --communities, --estimator and --mechanism.
func TestValueCompletion(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"locate", "-o", ""}, "json"},
		{[]string{"sensitivity", "--graph", ""}, "karate"},
		{[]string{"locate", "--communities", ""}, "property:"},
		{[]string{"locate", "--estimator", ""}, "posterior"},
		{[]string{"release", "--mechanism", ""}, "discrete"},
	} {
		out, _, _ := runPrivacyCLI(t, append([]string{"__complete"}, tc.args...)...)
		if !slicesContains(strings.Split(out, "\n"), tc.want) {
			t.Errorf("completing %q: %q lacks %q", tc.args, out, tc.want)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// One vocabulary: the line's diffusion time is --tau like
// everywhere else (--T a hidden old spelling), the line's source positions
// are --source-positions (--sources is a count elsewhere), the seed is
// --random-seed (GDS spelling; --seed hidden).
func TestOneVocabulary(t *testing.T) {
	isolateConfig(t)
	line := func(args ...string) string {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"sensitivity", "--line", "--n", "40", "--m", "30", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		return out
	}
	if a, b := untimed(t, line("--tau", "0.02")), untimed(t, line("--T", "0.02")); a != b {
		t.Errorf("--tau and --T differ:\n%s\n%s", a, b)
	}
	if _, code, _ := runPrivacyCLI(t, "sensitivity", "--line", "--n", "40", "--m", "30", "--tau", "0.02", "--T", "0.03"); code != exitUsage {
		t.Errorf("--tau with --T: exit %d, want 2", code)
	}
	run := func(args ...string) string {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"experiment", "line", "--trials", "2", "--estimator", "bpdn", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		return out
	}
	if a, b := untimed(t, run("--tau", "0.05", "--source-positions", "0.3", "--random-seed", "3")), untimed(t, run("--T", "0.05", "--sources", "0.3", "--seed", "3")); a != b {
		t.Errorf("new and old spellings differ:\n%s\n%s", a, b)
	}
	help, _, _ := runPrivacyCLI(t, "experiment", "line", "--help")
	for _, old := range []string{"--T ", "--sources ", "--seed "} {
		if strings.Contains(help, old) {
			t.Errorf("experiment line --help shows the old spelling %s", old)
		}
	}
}

// untimed is a JSON document without its timing fields, for comparisons.
func untimed(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.HasSuffix(k, "Millis") || k == "seconds" {
			delete(m, k)
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// Outputs: "-" means standard output where the output can be a
// stream (locate --out -: CSV on stdout, the summary on stderr); it used to
// create a file named "-". A release file cannot be a stream and is refused.
// An output in a missing directory is refused before any work, and a failed
// run leaves no temporary file.
func TestOutputsDashAndTemp(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	t.Chdir(dir)
	var out, errb strings.Builder
	if code := runArgs(context.Background(), []string{"locate", "--graph", "karate", "--release", rel, "--out", "-"}, &out, &errb); code != 0 {
		t.Fatalf("locate --out -: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != "key,mass,weight,community,probability,rank" || len(lines) != 35 || !strings.Contains(errb.String(), "RANK") {
		t.Errorf("locate --out -: stdout %d lines starting %q; stderr %q", len(lines), lines[0], errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was created`)
	}
	if _, code, _ := runPrivacyCLI(t, "release", "--graph", "karate", "--values", "x.csv", "--out", "-"); code != exitUsage {
		t.Errorf("release --out -: exit %d, want 2", code)
	}
	if _, code, _ := runPrivacyCLI(t, "locate", "--graph", "karate", "--release", rel, "--out", filepath.Join(dir, "no", "x.csv")); code != exitBadInput {
		t.Errorf("locate --out in a missing directory: exit %d, want 3", code)
	}
	// A failing run (another graph) after the output was opened leaves nothing behind.
	if _, code, _ := runPrivacyCLI(t, "locate", "--graph", "path:n=34", "--release", rel, "--out", "nodes.csv"); code != exitBadInput {
		t.Errorf("locate on another graph: exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "nodes.csv") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
