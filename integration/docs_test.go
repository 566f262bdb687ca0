package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestNeo4jGuideAsWritten (issue 12): the commands of docs/neo4j.md run as
// written from the repository root against the real server: the Cypher
// loader from examples/, then budget, release (examples/rooms-readings.csv)
// and locate with the run id release printed.
func TestNeo4jGuideAsWritten(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cypher, err := os.ReadFile(filepath.Join(root, "examples", "load-neo4j.cypher"))
	if err != nil {
		t.Fatal(err)
	}
	dropLabel(t, d, "Room")
	t.Cleanup(func() {
		dropLabel(t, d, "Room")
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = 'building-7' DELETE l", nil)
	})
	var stmt []string
	for _, line := range strings.Split(string(cypher), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			stmt = append(stmt, line)
		}
	}
	query(t, d, strings.TrimSuffix(strings.TrimSpace(strings.Join(stmt, "\n")), ";"), nil)

	guide, err := os.ReadFile(filepath.Join(root, "docs", "neo4j.md"))
	if err != nil {
		t.Fatal(err)
	}
	g := string(guide)
	i := strings.Index(g, "## 3.")
	start := i + strings.Index(g[i:], "```sh\n") + len("```sh\n")
	block := g[start : start+strings.Index(g[start:], "```")]
	block = strings.ReplaceAll(block, "\\\n", " ")
	runID := ""
	for _, line := range strings.Split(block, "\n") {
		args := strings.Fields(line)
		if len(args) == 0 {
			continue
		}
		if strings.Contains(line, "<the run id release printed>") {
			line = strings.ReplaceAll(line, "<the run id release printed>", runID)
			args = strings.Fields(line)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, graphcloakBinary(t), args[1:]...)
		cmd.Dir = root
		cmd.Env = append(cliEnv(), "GRAPHCLOAK_NEO4J_PASSWORD="+s.Password, "GRAPHCLOAK_NEO4J_URI="+s.URI, "GRAPHCLOAK_NEO4J_USER="+s.User)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", line, err, so.String(), se.String())
		}
		if args[1] == "release" {
			m := regexp.MustCompile(`run-[0-9A-Za-z-]+`).FindString(so.String() + se.String())
			if m == "" {
				t.Fatalf("release printed no run id:\n%s\n%s", so.String(), se.String())
			}
			runID = m
		}
	}
	if runID == "" {
		t.Fatal("the guide has no release command")
	}
}
