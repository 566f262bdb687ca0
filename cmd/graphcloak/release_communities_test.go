package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeKaratePartition writes a communities file of the 34 karate nodes,
// node k in community of(k), plus the extra rows.
func writeKaratePartition(t *testing.T, path string, of func(k int) string, extra ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("node,community\n")
	for k := 1; k <= 34; k++ {
		fmt.Fprintf(&b, "%d,%s\n", k, of(k))
	}
	for _, r := range extra {
		b.WriteString(r + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// karateFactions are Zachary's two factions (Mr Hi's: 1–9, 11–14, 17,
// 18, 20, 22).
func karateFaction(k int) string {
	switch k {
	case 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 17, 18, 20, 22:
		return "hi"
	}
	return "officer"
}

// release --communities (and the configuration key recovery.communities,
// shared by release, locate, plan and serve) makes the dry run's
// forecasts, the private answer's beside them and --refuse-at-chance
// score the user's partition, not Leiden's: two factions give forecasts
// over 2 communities (Leiden finds 4), the environment variable gives the
// flag's forecast, a partition no release can beat (one community) is
// refused before the charge where Leiden's is charged, and a file naming
// a node the graph lacks is refused with nothing charged.
func TestReleaseForecastsOnTheUsersPartition(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := karateSourceReadings(t, filepath.Join(dir, "readings.csv"), 3, 0.2)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger)
	factions := writeKaratePartition(t, filepath.Join(dir, "factions.csv"), karateFaction)
	one := writeKaratePartition(t, filepath.Join(dir, "one.csv"), func(int) string { return "all" })
	stray := writeKaratePartition(t, filepath.Join(dir, "stray.csv"), karateFaction, "35,hi")
	release := func(extra ...string) (string, string, int) {
		args := append([]string{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--tau", "0.2",
			"--epsilon", "4", "--forecast-trials", "30"}, extra...)
		return runPipelineCLI(t, context.Background(), nil, args...)
	}
	type forecasts struct {
		Forecast struct {
			Communities string
			PerNode     struct {
				CommunityCount    int
				CommunityAccuracy float64
			}
			PrivateAnswer struct {
				CommunityCount    int
				CommunityAccuracy float64
			}
		}
	}
	dry := func(extra ...string) forecasts {
		t.Helper()
		out, stderr, code := release(append([]string{"--dry-run", "-o", "json"}, extra...)...)
		if code != 0 {
			t.Fatalf("dry run %v: exit %d: %s", extra, code, stderr)
		}
		var f forecasts
		if err := json.Unmarshal([]byte(out), &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	leiden, mine := dry(), dry("--communities", "file:"+factions)
	if leiden.Forecast.Communities != "leiden" || leiden.Forecast.PerNode.CommunityCount != 4 {
		t.Errorf("default: forecasts on %q over %d communities, want leiden's 4", leiden.Forecast.Communities, leiden.Forecast.PerNode.CommunityCount)
	}
	if f := mine.Forecast; f.Communities != "file:"+factions || f.PerNode.CommunityCount != 2 || f.PrivateAnswer.CommunityCount != 2 {
		t.Errorf("--communities file: forecasts on %q over %d and %d communities, want the 2 factions", f.Communities, f.PerNode.CommunityCount, f.PrivateAnswer.CommunityCount)
	}
	t.Setenv("GRAPHCLOAK_RECOVERY_COMMUNITIES", "file:"+factions)
	if env := dry(); env != mine {
		t.Errorf("recovery.communities from the environment: %+v, want the flag's %+v", env, mine)
	}
	// The same key is plan's and locate's.
	out, stderr, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--trials", "2", "--modes", "per-node", "-o", "json")
	var plan struct{ Communities string }
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || plan.Communities != "file:"+factions {
		t.Errorf("plan under recovery.communities: exit %d, communities %q: %s", code, plan.Communities, stderr)
	}
	out, stderr, code = runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--private-answer", "--values", readings,
		"--ledger", ledger, "--tau", "0.2", "--dry-run", "--forecast-trials", "0", "-o", "json")
	var answer struct{ Communities string }
	if code != 0 || json.Unmarshal([]byte(out), &answer) != nil || answer.Communities != "file:"+factions {
		t.Errorf("locate --private-answer under recovery.communities: exit %d, communities %q: %s", code, answer.Communities, stderr)
	}
	os.Unsetenv("GRAPHCLOAK_RECOVERY_COMMUNITIES")

	before := readFile(t, ledger)
	for _, c := range []struct {
		name, file, want string
	}{
		{"one community: at chance", one, "--refuse-at-chance"},
		{"a node the graph lacks", stray, `"35"`},
	} {
		out := filepath.Join(dir, "refused.json")
		_, stderr, code := release("--refuse-at-chance", "--communities", "file:"+c.file, "--out", out)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d naming %s: %s", c.name, code, exitBadInput, c.want, stderr)
		}
		if readFile(t, ledger) != before {
			t.Fatalf("%s: the ledger changed", c.name)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: a release file was written", c.name)
		}
	}
	if _, stderr, code := release("--refuse-at-chance", "--out", filepath.Join(dir, "leiden.json")); code != 0 || readFile(t, ledger) == before {
		t.Errorf("on Leiden's communities the same release is charged: exit %d: %s", code, stderr)
	}
}

// A communities file naming a node the graph lacks is refused (exit 3,
// naming the node) by every command that reads one, and nothing is
// charged: a private answer used to be charged on the other rows.
func TestUnknownCommunityNodesRefusedEverywhere(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := karateSourceReadings(t, filepath.Join(dir, "readings.csv"), 3, 0.2)
	ledger := filepath.Join(dir, "ledger.json")
	initTestLedger(t, ledger, "--answer-epsilon", "4")
	stray := "file:" + writeKaratePartition(t, filepath.Join(dir, "stray.csv"), karateFaction, "zz-top,hi")
	rel := filepath.Join(dir, "release.json")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "release", "--graph", "karate", "--values", readings,
		"--ledger", ledger, "--tau", "0.2", "--out", rel); code != 0 {
		t.Fatalf("release: exit %d: %s", code, stderr)
	}
	before := readFile(t, ledger)
	for _, args := range [][]string{
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--epsilon", "1", "--tau", "0.2"},
		{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger, "--epsilon", "1", "--tau", "0.2", "--dry-run"},
		{"locate", "--graph", "karate", "--release", rel},
		{"plan", "--graph", "karate", "--trials", "2"},
		{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--tau", "0.2", "--out", filepath.Join(dir, "r2.json")},
		{"release", "--graph", "karate", "--values", readings, "--ledger", ledger, "--tau", "0.2", "--dry-run"},
	} {
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--communities", stray)...)
		if code != exitBadInput || !strings.Contains(stderr, `"zz-top"`) {
			t.Errorf("%v: exit %d, want %d naming the node: %s", args, code, exitBadInput, stderr)
		}
		if readFile(t, ledger) != before {
			t.Fatalf("%v: the ledger changed", args)
		}
	}
}
