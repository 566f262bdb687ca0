package main

import (
	"context"
	"strings"
	"testing"
)

// TestRunsPruneKeepNegative: --keep -1 is refused
// (exit 3) before any connection; -1 used to mean "no limit" inside.
func TestRunsPruneKeepNegative(t *testing.T) {
	isolateConfig(t)
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "runs", "prune", "--keep", "-1", "--uri", "bolt://127.0.0.1:1"); code != 3 || !strings.Contains(stderr, "--keep") {
		t.Fatalf("runs prune --keep -1: exit %d: %s", code, stderr)
	}
}
