package integration

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shBlock returns the first sh code block after heading, its continued
// lines joined.
func shBlock(doc, heading string) string {
	i := strings.Index(doc, heading)
	start := i + strings.Index(doc[i:], "```sh\n") + len("```sh\n")
	block := doc[start : start+strings.Index(doc[start:], "```")]
	return strings.ReplaceAll(block, "\\\n", " ")
}

// TestNeo4jGuideAsWritten (issues 12, 34, 49): every sh block of
// docs/neo4j.md runs as written, in bash, from the repository root — its
// first step, eval "$(bash scripts/neo4j.sh start)", starting a server of
// its own (in a temporary GRAPHCLOAK_NEO4J_DIR, on a free port) whose
// connection the eval sets, then the building loaded with graphcloak load
// (twice: a rerun changes nothing), its projection saved, budget, release
// and locate --release-run latest. The start sets the
// URI, user and password of the server it started, on whatever port it got. Without Java and Maven (a Docker server) the start line is
// replaced by the test server's connection.
func TestNeo4jGuideAsWritten(t *testing.T) {
	t.Parallel() // the guide starts its own server
	s := neo4jServer(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile(filepath.Join(root, "docs", "neo4j.md"))
	if err != nil {
		t.Fatal(err)
	}
	g := string(guide)
	if strings.Contains(g, "cypher-shell -") || strings.Contains(g, "<the run id") {
		t.Fatal("docs/neo4j.md runs cypher-shell or has a placeholder to fill in")
	}
	const start = `eval "$(bash scripts/neo4j.sh start)"`
	if first := strings.TrimSpace(shBlock(g, "## 1.")); !strings.HasPrefix(first, start) {
		t.Fatalf("docs/neo4j.md's first command is %q, want %s", first, start)
	}
	load := strings.SplitN(strings.TrimSpace(shBlock(g, "## 2.")), "\n", 2)[0]
	script := strings.Join(shellBlocks(g), "\n") + "\n" + load + "\n"
	bin := graphcloakBinary(t)
	env := append(cliEnv(), "XDG_CONFIG_HOME="+t.TempDir(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	own := exec.Command("bash", filepath.Join(root, "scripts", "neo4j.sh"), "check").Run() == nil
	if own {
		// The guide's own server: stopped (by its PID) when the test ends,
		// and by itself should the test be killed.
		env = append(env, "GRAPHCLOAK_NEO4J_DIR="+dir, "NEO4J_PORT=0", "GRAPHCLOAK_NEO4J_HEAP=1g", ownServerJavaOpts,
			fmt.Sprintf("GRAPHCLOAK_NEO4J_WATCH_PID=%d", os.Getpid()))
		t.Cleanup(func() {
			if out, err := exec.Command("bash", filepath.Join(root, "scripts", "neo4j.sh"), "stop", dir).CombinedOutput(); err != nil {
				t.Logf("neo4j.sh stop: %v\n%s", err, out)
			}
		})
	} else {
		script = strings.Replace(script, start, fmt.Sprintf("export GRAPHCLOAK_NEO4J_URI=%s GRAPHCLOAK_NEO4J_USER=%s GRAPHCLOAK_NEO4J_PASSWORD=%s",
			s.URI, s.User, s.Password), 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = root
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	t0 := time.Now()
	err = cmd.Run()
	t.Logf("docs/neo4j.md ran in %.1f s (own server: %v)", time.Since(t0).Seconds(), own)
	if err != nil {
		t.Fatalf("docs/neo4j.md:\n%s\n%v\nstdout: %s\nstderr: %s", script, err, so.String(), se.String())
	}
	// Plain text: no colour codes (Maven's ESC[0m among them) in what the
	// start printed.
	if strings.Contains(se.String(), "\x1b[") {
		t.Errorf("the guide's output has ANSI escapes:\n%q", se.String())
	}
	if m := regexp.MustCompile(`neo4j\.sh: neo4j pid \d+ up in .*`).FindString(se.String()); m != "" {
		t.Log(m)
	}
	// The server the guide ran against.
	gs := s
	if own {
		uri, err := os.ReadFile(filepath.Join(dir, "ready"))
		if err != nil {
			t.Fatalf("the guide's server wrote no ready file: %v\n%s", err, se.String())
		}
		gs = server{URI: strings.TrimSuffix(strings.TrimSpace(string(uri)), "/"), User: "neo4j", Password: "graphcloak-test"}
	}
	d := rawDriver(t, gs)
	if !own {
		cleanup := func() {
			dropLabel(t, d, "Room")
			deleteScopeRuns(t, d, "building-7")
			query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge OR l:GraphcloakScopeLease) AND l.scope = 'building-7' DELETE l", nil)
		}
		t.Cleanup(cleanup)
	}
	if !regexp.MustCompile(`(?m)^key,mass,weight,community,probability,rank$`).MatchString(so.String()) {
		t.Errorf("locate --mode stream printed no per-node CSV:\n%s", so.String())
	}
	// load -o json matches its schema (every -o json output has one).
	lc := exec.Command(bin, append(strings.Fields(load)[1:], "-o", "json")...)
	lc.Dir = root
	lc.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_URI="+gs.URI, "GRAPHCLOAK_NEO4J_USER="+gs.User, "GRAPHCLOAK_NEO4J_PASSWORD="+gs.Password)
	lout, err := lc.Output()
	if err != nil {
		t.Fatalf("load -o json: %v", err)
	}
	validateSchema(t, "load", string(lout))
	// The loaded building, once although loaded twice: the rooms.csv graph.
	r := query(t, d, "MATCH (n:Room) WITH count(n) AS n, count(n.reading) AS v "+
		"CALL { MATCH (:Room)-[r:DOOR]->(:Room) RETURN count(r) AS r, sum(r.conductance) AS c } RETURN n, v, r, c", nil)
	if n, v, rels, c := r[0].Values[0], r[0].Values[1], r[0].Values[2], r[0].Values[3]; n != int64(12) || v != int64(12) || rels != int64(17) ||
		math.Abs(c.(float64)-14.0) > 1e-9 {
		t.Fatalf("loaded %v rooms (%v readings), %v doors of total conductance %v; want 12, 12, 17, 14.0", n, v, rels, c)
	}
}
