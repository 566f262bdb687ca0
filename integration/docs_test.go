package integration

import (
	"bytes"
	"context"
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

// TestNeo4jGuideAsWritten (issues 12, 34): the commands of docs/neo4j.md
// run as written from the repository root against the real server:
// graphcloak load (section 1, twice), then budget, release
// (examples/rooms-readings.csv) and locate with the run id release printed.
func TestNeo4jGuideAsWritten(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dropLabel(t, d, "Room")
	t.Cleanup(func() {
		dropLabel(t, d, "Room")
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = 'building-7' DELETE l", nil)
	})
	guide, err := os.ReadFile(filepath.Join(root, "docs", "neo4j.md"))
	if err != nil {
		t.Fatal(err)
	}
	g := string(guide)
	// Section 1 loads the building with graphcloak load (twice: a rerun
	// changes nothing), section 3 releases and locates on it.
	block := shBlock(g, "## 1.") + shBlock(g, "## 1.") + shBlock(g, "## 3.")
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
	// The loaded building, once although loaded twice: the rooms.csv graph.
	r := query(t, d, "MATCH (n:Room) WITH count(n) AS n, count(n.reading) AS v "+
		"CALL { MATCH (:Room)-[r:DOOR]->(:Room) RETURN count(r) AS r, sum(r.conductance) AS c } RETURN n, v, r, c", nil)
	if n, v, rels, c := r[0].Values[0], r[0].Values[1], r[0].Values[2], r[0].Values[3]; n != int64(12) || v != int64(12) || rels != int64(17) ||
		math.Abs(c.(float64)-14.0) > 1e-9 {
		t.Fatalf("loaded %v rooms (%v readings), %v doors of total conductance %v; want 12, 12, 17, 14.0", n, v, rels, c)
	}
}
