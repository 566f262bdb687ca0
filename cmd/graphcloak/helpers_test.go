package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/uniquekeys"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/spf13/cobra"
)

// writeReadings writes a karate readings CSV where node k reads f(k).
func writeReadings(t *testing.T, path string, f func(k int) float64) map[string]float64 {
	t.Helper()
	var b strings.Builder
	m := map[string]float64{}
	for k := 1; k <= 34; k++ {
		fmt.Fprintf(&b, "%d,%.9f\n", k, f(k))
		m[fmt.Sprint(k)] = f(k)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return m
}

// initTestLedger runs budget --init for a file ledger.
func initTestLedger(t *testing.T, ledger string, extra ...string) {
	t.Helper()
	args := append([]string{"budget", "--init", "--ledger", ledger, "--epsilon-total", "10", "--delta-total", "1e-5"}, extra...)
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
	}
}

// runCLI runs one command line in-process as main does (errors reported
// by reportError) and returns stdout, stderr and the exit code.
func runCLI(args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := runArgs(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// walk calls fn on cmd and every command below it.
func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, c := range cmd.Commands() {
		walk(c, fn)
	}
}

// runPrivacyCLI runs the command line in-process and returns stdout, the
// exit code and the error (whose message the tests inspect).
func runPrivacyCLI(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), exitCode(err), err
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func testGlobals(t *testing.T, mutate func(*config.Config)) *globalOptions {
	t.Helper()
	isolateConfig(t)
	l, err := config.Load(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&l.Config)
	}
	return &globalOptions{cfg: l, logger: uniquekeys.NewLogger(&testWriter{t}, "text", "info"), stderr: &testWriter{t}}
}

// wantRefusal reports whether err has the exit code want and, when it is
// an error, whether its text as a user reads it names flag.
func wantRefusal(t *testing.T, name string, err error, want int, flag string) bool {
	t.Helper()
	if got := exitCode(err); got != want {
		t.Errorf("%s: exit %d (%v), want %d", name, got, err, want)
		return false
	}
	if err != nil && !strings.Contains(flagText(err), flag) {
		t.Errorf("%s: %q does not name %s", name, flagText(err), flag)
		return false
	}
	return true
}

// releaseKarate releases heat from node 1 on karate with a large ε and
// returns the release file.
func releaseKarate(t *testing.T, dir string) string {
	t.Helper()
	// Readings: a unit source at node 1 seen at every node after τ = 1 —
	// approximated by a spike; locate only needs data with a clear peak.
	var b strings.Builder
	for k := 1; k <= 34; k++ {
		v := 0.0
		if k == 1 {
			v = 1
		}
		b.WriteString(strings.Join([]string{itoa(k), ftoa(v)}, ",") + "\n")
	}
	readings := filepath.Join(dir, "readings.csv")
	os.WriteFile(readings, []byte(b.String()), 0o600)
	out := filepath.Join(dir, "release.json")
	initTestLedger(t, filepath.Join(dir, "l.json"), "--epsilon-total", "1000", "--delta-total", "1e-3")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--out", out, "--ledger", filepath.Join(dir, "l.json"),
		"--epsilon", "500", "--delta", "1e-6", "--tau", "0.2")
	if code != 0 {
		t.Fatalf("release: exit %d: %s", code, stderr)
	}
	return out
}

// isolateConfig keeps the user's config file, work store and GRAPHCLOAK_*
// environment out of a test.
func isolateConfig(t testing.TB) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	// The work store too: a test's commands share one, empty at its start.
	// Go's build cache stays where it was (a test that builds the binary
	// would otherwise build everything from nothing).
	if os.Getenv("GOCACHE") == "" {
		if d, err := os.UserCacheDir(); err == nil {
			t.Setenv("GOCACHE", filepath.Join(d, "go-build"))
		}
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); strings.HasPrefix(name, "GRAPHCLOAK_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

// runPipelineCLI runs the CLI in-process with stdin and returns stdout,
// stderr and the exit code.
func runPipelineCLI(t *testing.T, ctx context.Context, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetArgs(args)
	if stdin != nil {
		root.SetIn(stdin)
	}
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(&errb, "graphcloak:", flagText(err)) // naming flags, as errorMessage does
	}
	return out.String(), errb.String(), exitCode(err)
}

// karateReadings writes a readings CSV for the 34 karate nodes: node k
// reads 0.1234567 + k·1e-3 (distinctive strings to search for).
func karateReadings(t *testing.T, dir string, header bool) (string, []string) {
	t.Helper()
	var b strings.Builder
	if header {
		b.WriteString("node,value\n")
	}
	var raw []string
	for k := 1; k <= 34; k++ {
		v := fmt.Sprintf("%.7f", 0.1234567+float64(k)*1e-3)
		raw = append(raw, v)
		fmt.Fprintf(&b, "%d,%s\n", k, v)
	}
	p := filepath.Join(dir, "readings.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p, raw
}

// karateSourceReadings writes the readings of a source of mass 2 at node
// key src after diffusion time τ (exp(−τL)·2e_src, full precision): inside
// the private answer's model.
func karateSourceReadings(t *testing.T, path string, src int, tau float64) string {
	t.Helper()
	g, _ := laplacian.Karate()
	act, err := expm.NewAction(g, tau, expm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	i, _ := g.IndexOf(strconv.Itoa(src))
	f0[i] = 2
	act.Apply(y, f0, 1)
	var b strings.Builder
	b.WriteString("node,value\n")
	for j, v := range y {
		fmt.Fprintf(&b, "%s,%s\n", g.Key(j), strconv.FormatFloat(v, 'g', -1, 64))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// validate checks doc against docs/schemas/NAME.schema.json.
func validate(t *testing.T, name, doc string) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("../../docs/schemas", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: output is not JSON: %v\n%s", name, err, doc)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s: output does not match docs/schemas/%s.schema.json: %v\n%s", name, name, err, doc)
	}
}

// twoBlockReadings writes readings for a source of mass units at node
// src of graph spec, diffused for τ (exp(−τL)·mass·e_src, no noise: the
// release adds it).
func twoBlockReadings(t *testing.T, dir, spec string, tau, mass float64, src int) string {
	t.Helper()
	g, _, err := laplacian.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	md, err := recovery.NewGraphModel(g, tau, recovery.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f0, y := make([]float64, g.N()), make([]float64, g.N())
	f0[src] = mass
	md.Apply(y, f0)
	var b strings.Builder
	b.WriteString("node,value\n")
	for i, v := range y {
		fmt.Fprintf(&b, "%s,%.9g\n", g.Key(i), v)
	}
	p := filepath.Join(dir, fmt.Sprintf("readings-%g.csv", mass))
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// roomsCSV and roomsReadings are the rooms example of README and
// docs/neo4j.md: two wings of six rooms, readings of a 40-unit source in
// room 105 diffused for τ = 1.
const (
	roomsCSV      = "../../examples/rooms.csv"
	roomsReadings = "../../examples/rooms-readings.csv"
)

// walkCommands calls fn for every command of the tree.
func walkCommands(root *cobra.Command, fn func(cmd *cobra.Command)) {
	fn(root)
	for _, s := range root.Commands() {
		walkCommands(s, fn)
	}
}
