package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// pathFlagsOf lists the path flags of cmd (checkPaths' table, the exempt
// commands and flags left out), sorted.
func pathFlagsOf(cmd *cobra.Command) []string {
	if pathCheckExempt[cmd.CommandPath()] {
		return nil
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := pathFlags[f.Name]; ok && !notPathFlags[cmd.Name()][f.Name] && !notPathFlags[""][f.Name] {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	return names
}

// speaksOfFiles matches a flag's help that names a file or a path.
var speaksOfFiles = regexp.MustCompile(`(?i)\b(file|path|directory|image|csv)\b|\.(json|csv|png|svg|pdf)\b`)

// Every flag whose help speaks of a file is in checkPaths' table (or named
// as no path): a new file flag is checked, and covered by
// TestUnusablePathsExitBadInput, from its first commit. The stdin
// convention's list (checkStdio) names no file flag the table lacks.
func TestPathFlagsAreClassified(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	walkCommands(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "string" || !speaksOfFiles.MatchString(f.Usage) {
				return
			}
			_, isPath := pathFlags[f.Name]
			if !isPath && !notPathFlags[c.Name()][f.Name] && !notPathFlags[""][f.Name] {
				t.Errorf("%s --%s speaks of a file (%q) but is not in pathFlags (paths.go): say how it is used, or list it in notPathFlags", c.CommandPath(), f.Name, f.Usage)
			}
		})
	})
	for _, name := range fileFlags {
		if _, ok := pathFlags[name]; !ok && name != "config" {
			t.Errorf("checkStdio's file flag --%s is not in pathFlags", name)
		}
	}
}

// pathFixtures are the files a valid run of every command reads: a charged
// ledger (answers' share too), karate readings of one source, a
// communities file, a release file, a keyed release and its key, a ledger
// key, a Δ2 certificate.
type pathFixtures struct {
	dir, ledger, readings, communities, release, keyedRelease, key, ledgerKey, cert string
	auditPart, certPart, edges, nodes                                               string
	signing, order, macKeys                                                         string
}

func newPathFixtures(t *testing.T) pathFixtures {
	t.Helper()
	dir := t.TempDir()
	p := pathFixtures{dir: dir, ledger: filepath.Join(dir, "ledger.json"), communities: filepath.Join(dir, "communities.csv"),
		release: filepath.Join(dir, "release.json"), keyedRelease: filepath.Join(dir, "keyed.json"),
		key: filepath.Join(dir, "noise.key"), ledgerKey: filepath.Join(dir, "ledger.key"), cert: filepath.Join(dir, "delta2.json"),
		auditPart: filepath.Join(dir, "audit-part.json"), certPart: filepath.Join(dir, "delta2-part.json")}
	p.readings = karateSourceReadings(t, filepath.Join(dir, "readings.csv"), 3, 0.2)
	p.nodes = filepath.Join(dir, "nodes.txt")
	if err := os.WriteFile(p.nodes, []byte("1\n2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.edges = filepath.Join(dir, "edges.csv")
	var edges strings.Builder
	edges.WriteString("source,target\n")
	g, _ := laplacian.Karate()
	g.ForEachEdge(func(i, j int, _ float64) { edges.WriteString(g.Key(i) + "," + g.Key(j) + "\n") })
	if err := os.WriteFile(p.edges, []byte(edges.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	initTestLedger(t, p.ledger, "--answer-epsilon", "4")
	for _, k := range []string{p.key, p.ledgerKey} {
		key, _ := privacy.GenerateKey()
		if err := privacy.WriteKeyFile(k, key); err != nil {
			t.Fatal(err)
		}
	}
	p.signing, p.order, p.macKeys = filepath.Join(dir, "coord.key"), filepath.Join(dir, "order.json"), filepath.Join(dir, "mac-keys.csv")
	if _, err := sensor.GenerateSigningKey(p.signing); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.macKeys, []byte("node,reportMacKeyHex\n1,"+strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"epoch", "open", "--graph", "karate", "--tau", "0.2", "--ledger", p.ledger, "--epoch", "fixture", "--valid-for", "1h",
			"--signing-key", p.signing, "--out", p.order},
		{"communities", "--graph", "karate", "--out", p.communities},
		{"release", "--graph", "karate", "--values", p.readings, "--ledger", p.ledger, "--out", p.release, "--tau", "0.2"},
		{"release", "--graph", "karate", "--values", p.readings, "--ledger", p.ledger, "--out", p.keyedRelease, "--key", p.key, "--tau", "0.2"},
		{"sensitivity", "--graph", "karate", "--tau", "0.2", "--save", p.cert},
		{"sensitivity", "--graph", "karate", "--tau", "0.2", "--shard", "0/1", "--save", p.certPart},
		{"audit", "--graph", "karate", "--tau", "0.2", "--shard", "0/1", "--save", p.auditPart},
	} {
		if _, stderr, code := runPipelineCLI(t, context.Background(), nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	return p
}

// unreachable are the flags of a command that needs Neo4j, pointing at a
// port nothing listens on: a path refused before connecting exits 3, one
// that is not exits 4.
var unreachable = []string{"--uri", "bolt://127.0.0.1:1", "--connect-timeout", "1s"}

// pathBases are valid invocations of every command with path flags (that
// would charge the ledger where the command charges), by command path
// below the root, or by "command --flag" where that flag needs another
// (locate --release is not a private answer's); TestUnusablePathsExitBadInput
// adds one bad path flag, so that the path is the only thing wrong.
func pathBases(p pathFixtures) map[string][]string {
	out := func(name string) string { return filepath.Join(p.dir, "new-"+name) }
	neo := func(args ...string) []string { return append(args, unreachable...) }
	release := []string{"--graph", "karate", "--values", p.readings, "--ledger", p.ledger, "--tau", "0.2", "--out", out("release.json")}
	locate := []string{"--graph", "karate", "--release", p.release, "--out", out("located.csv"), "--plot", out("located.png")}
	return map[string][]string{
		"audit":            {"--graph", "karate", "--tau", "0.2", "--save", out("audit.json")},
		"audit merge":      {"--graph", "karate", "--tau", "0.2", "--save", out("merged.json"), p.auditPart},
		"budget":           {"--ledger", p.ledger},
		"cache":            {"--cache-dir", out("store")},
		"cache prune":      {"--cache-dir", out("store")},
		"communities":      {"--graph", "karate", "--out", out("communities.csv")},
		"export":           {"--graph", "karate", "--out", out("edges.csv"), "--communities", "leiden", "--communities-out", out("export-communities.csv")},
		"demo":             {"--plot", out("demo.png"), "--graph", "karate"},
		"keygen":           {"--out", out("k.key")},
		"keygen --master":  {"--master", p.key, "--nodes", p.nodes, "--out-dir", out("sensors")},
		"keygen --nodes":   {"--master", p.key, "--nodes", p.nodes, "--out-dir", out("sensors")},
		"keygen --out-dir": {"--master", p.key, "--nodes", p.nodes, "--out-dir", out("sensors")},
		"keygen --mac-csv": {"--master", p.key, "--nodes", p.nodes, "--out-dir", out("sensors"), "--mac-csv", out("macs.csv")},
		"sensor report": {"--order", p.readings, "--coordinator-key", p.key, "--key", p.key, "--node", "3",
			"--value-file", p.readings, "--policy", p.readings, "--odometer", out("odometer")},
		"sensor init": {"--node", "3", "--odometer", out("odometer")},
		"unmask":      {"--key", p.key, "--release", p.keyedRelease},
		"epoch open": {"--graph", "karate", "--tau", "0.2", "--ledger", p.ledger, "--epoch", "e-paths", "--valid-for", "1h",
			"--signing-key", p.signing, "--out", out("order.json")},
		"collect": {"--order", p.order, "--coordinator-key", p.signing + ".pub", "--mac-keys", p.macKeys,
			"--journal", out("journal"), "--reports", p.readings},
		"sensitivity":                 {"--graph", "karate", "--tau", "0.2", "--save", out("cert.json")},
		"sensitivity merge":           {"--save", out("merged-cert.json"), p.certPart},
		"release":                     append(slices.Clone(release), "--sensitivity-cert", p.cert),
		"release --sensitivity-cache": release,
		"locate": {"--graph", "karate", "--private-answer", "--values", p.readings, "--ledger", p.ledger, "--epsilon", "1",
			"--tau", "0.2", "--communities", "file:" + p.communities, "--forecast-trials", "0"},
		"locate --release":       locate,
		"locate --released":      locate[:2],
		"locate --out":           locate,
		"locate --plot":          locate,
		"plan":                   {"--graph", "karate", "--epsilon", "1", "--trials", "2", "--ledger", p.ledger, "--communities", "file:" + p.communities},
		"experiment graph":       {"--graph", "karate", "--trials", "1", "--plot", out("bars.png")},
		"experiment line":        {"--trials", "1", "--plot", out("line.png")},
		"experiment sensitivity": {"--plot", out("panels.png")},
		"serve":                  neo("--graph", "neo4j", "--values", p.readings, "--ledger", p.ledger, "--schedule", "@hourly", "--max-runs", "1", "--listen", ""),
		"load":                   neo("--edges", p.edges, "--values", p.readings, "--node-labels", "Room", "--relationship-types", "DOOR", "--node-key-property", "roomId", "--value-property", "reading"),
		"runs":                   neo("--plot", out("runs.png")),
	}
}

// readFile is the content of path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unixSocket makes a file no one can read, not even root: a Unix socket
// (opening it fails with ENXIO).
func unixSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix socket for an unreadable file: %v", err)
	}
	t.Cleanup(func() { l.Close() })
}

// Every path flag of every command, found in the command tree, given a
// directory, a missing file (or, for an output, a missing directory) and
// a file that cannot be read, exits 3 naming the path — before anything
// is charged (the ledger is byte for byte as it was) or written (no new
// file beside the fixtures). Before checkPaths, 40 of the 163 cases the tree
// then had failed: 7 exited 0 (4 of them charging the ledger: a directory
// as --answer-cache or --sensitivity-cache was ignored), 7 exited 1
// (internal), 12 exited 4 (serve connected first), 14 exited 3 without
// naming the path or left a file behind.
func TestUnusablePathsExitBadInput(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	p := newPathFixtures(t)
	bases := pathBases(p)
	bad := t.TempDir()
	socket := filepath.Join(bad, "s.sock")
	unixSocket(t, socket)
	listing := func() []string {
		es, _ := os.ReadDir(p.dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	covered := 0
	walkCommands(newRootCmd(io.Discard, io.Discard), func(c *cobra.Command) {
		flags := pathFlagsOf(c)
		if len(flags) == 0 {
			return
		}
		name := strings.TrimPrefix(c.CommandPath(), "graphcloak ")
		if _, ok := bases[name]; !ok {
			t.Errorf("%s has path flags %v but no valid invocation in pathBases: add one", c.CommandPath(), flags)
			return
		}
		for _, flag := range flags {
			base, ok := bases[name+" --"+flag]
			if !ok {
				base = bases[name]
			}
			use := pathFlags[flag]
			cases := map[string]string{"a directory": bad}
			if use == inputfiles.DirPath {
				cases = map[string]string{"a file": p.readings}
			}
			if use == inputfiles.ReadPath {
				cases["a missing file"] = filepath.Join(bad, "none-"+flag)
			} else {
				cases["a missing directory"] = filepath.Join(bad, "no-dir", flag)
			}
			if use == inputfiles.ReadPath || use == inputfiles.KeptPath {
				cases["an unreadable file"] = socket
			}
			for what, path := range cases {
				value := path
				if specPathFlags[flag] {
					value = "file:" + path
				}
				t.Run(name+" --"+flag+" "+what, func(t *testing.T) {
					covered++
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					ledgerBefore, filesBefore := readFile(t, p.ledger), listing()
					args := append(strings.Fields(name), append(slices.Clone(base), "--"+flag, value)...)
					_, stderr, code := runPipelineCLI(t, ctx, nil, args...)
					if code != exitBadInput || !strings.Contains(stderr, path) {
						t.Errorf("%v: exit %d, want %d naming %s: %s", args, code, exitBadInput, path, stderr)
					}
					if readFile(t, p.ledger) != ledgerBefore {
						t.Error("the ledger changed")
					}
					if now := listing(); !slices.Equal(now, filesBefore) {
						t.Errorf("files written: %v, before %v", now, filesBefore)
					}
				})
			}
		}
	})
	t.Logf("%d refusals checked", covered)
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
