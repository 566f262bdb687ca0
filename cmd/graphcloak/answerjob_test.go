package main

import (
	"context"
	"path/filepath"
	"testing"
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
