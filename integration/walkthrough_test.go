package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestWalkthroughScript: scripts/walkthrough.sh — README's quick
// start and file-based run, docs/neo4j.md, the scheduled jobs of
// docs/scheduling.md and docs/whisper.md, extracted from the docs and run
// as written from a fresh clone with only Go and this Neo4j — exits 0:
// every command succeeded and printed the verdict its guide tells (41
// verdicts: the script's table of the guides' story). The clone is of the
// committed HEAD.
func TestWalkthroughScript(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout: the walkthrough clones the repository")
	}
	cleanup := func() { cleanWalkthrough(t, d) }
	cleanup()
	t.Cleanup(cleanup)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "walkthrough.sh"))
	cmd.Dir = t.TempDir()
	cmd.Env = append(cliEnv(), "NEO4J_URI="+s.URI, "NEO4J_USER="+s.User, "NEO4J_PASSWORD="+s.Password)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/walkthrough.sh: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "every block ran") {
		t.Fatalf("the walkthrough did not finish:\n%s", out.String())
	}
	// It walked the whole way: the building and the club are in the
	// database, each with its localisations.
	for _, scope := range []string{"building-7", "whisper"} {
		r := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: 'locate', status: 'succeeded'}) RETURN count(r)", map[string]any{"s": scope})
		if n, _ := r[0].Values[0].(int64); n == 0 {
			t.Errorf("scope %s has no succeeded localisation after the walkthrough", scope)
		}
	}
}

// cleanWalkthrough removes what the walkthrough writes: its two graphs,
// their runs and their budgets.
func cleanWalkthrough(t *testing.T, d neo4j.DriverWithContext) {
	for _, label := range []string{"Room", "Person"} {
		dropLabel(t, d, label)
	}
	for _, scope := range []string{"building-7", "building-8", "whisper"} {
		deleteScopeRuns(t, d, scope)
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge OR l:GraphcloakScopeLease) AND l.scope = $s DELETE l", map[string]any{"s": scope})
	}
}
