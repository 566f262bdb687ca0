package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/job"
)

// locate --dry-run prints the plan of the localisation, validated by the
// locate schema, and writes nothing (no --out, no --plot); the
// localisation then runs with the σ, τ and forecast the plan printed.
func TestLocateDryRunCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	csvOut, plot := filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "p.svg")
	args := []string{"locate", "--graph", "karate", "--release", rel, "--forecast-trials", "5", "--out", csvOut, "--plot", plot}
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--dry-run", "-o", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "locate", stdout)
	var dry job.LocateSummary
	if err := json.Unmarshal([]byte(stdout), &dry); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{csvOut, plot} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("the dry run wrote %s (%v)", p, err)
		}
	}
	if !dry.DryRun || dry.Report != nil || dry.Forecast == nil || !(dry.Sigma > 0) || dry.Tau != 0.2 {
		t.Fatalf("dry run %+v", dry)
	}
	text, _, code := runPipelineCLI(t, context.Background(), nil, append(args, "--dry-run")...)
	if code != 0 || !strings.Contains(text, "dry run: nothing located or written") {
		t.Errorf("exit %d, table:\n%s", code, text)
	}

	stdout, stderr, code = runPipelineCLI(t, context.Background(), nil, append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("locate: exit %d: %s", code, stderr)
	}
	var sum job.LocateSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.DryRun || sum.Sigma != dry.Sigma || sum.Tau != dry.Tau || sum.CommunityCount != dry.CommunityCount ||
		sum.Forecast == nil || sum.Forecast.CommunityAccuracy != dry.Forecast.CommunityAccuracy {
		t.Errorf("located %+v, the dry run said %+v", sum, dry)
	}
}

// locate --private-answer --dry-run prints the calibration and the
// scope's balance, validated by the private answer's schema, and leaves
// the ledger byte for byte as it was; the answer then charges the ρ the
// dry run printed. Over the budget, the dry run is refused (exit 5) as
// the answer would be.
func TestPrivateAnswerDryRunCLI(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	readings := karateSourceReadings(t, filepath.Join(dir, "readings.csv"), 3, 0.2)
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	before, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"locate", "--graph", "karate", "--private-answer", "--values", readings, "--ledger", ledger,
		"--epsilon", "1", "--tau", "0.2", "--forecast-trials", "5", "--epoch", "e1", "-o", "json"}
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, append(args, "--dry-run")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "locate-private-answer", stdout)
	var dry job.AnswerSummary
	if err := json.Unmarshal([]byte(stdout), &dry); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(ledger); string(after) != string(before) {
		t.Fatal("the dry run changed the ledger")
	}
	if !dry.DryRun || dry.Answer != nil || dry.Calibration == nil || !(dry.Calibration.Rho > 0) || dry.Balance == nil || dry.Epoch != "e1" {
		t.Fatalf("dry run %+v", dry)
	}

	stdout, stderr, code = runPipelineCLI(t, context.Background(), nil, args...)
	if code != 0 {
		t.Fatalf("answer: exit %d: %s", code, stderr)
	}
	var sum job.AnswerSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Answer.Calibration.Rho != dry.Calibration.Rho || sum.Balance.RhoSpent != dry.Balance.RhoSpent+dry.Calibration.Rho {
		t.Errorf("charged ρ %v (spent %v), the dry run said ρ %v on %v spent", sum.Answer.Calibration.Rho, sum.Balance.RhoSpent,
			dry.Calibration.Rho, dry.Balance.RhoSpent)
	}

	over := filepath.Join(dir, "small.json")
	initTestLedger(t, over, "--epsilon-total", "0.01")
	if _, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--private-answer",
		"--values", readings, "--ledger", over, "--epsilon", "1", "--tau", "0.2", "--dry-run"); code != exitBudgetExhausted {
		t.Errorf("over budget: exit %d, want %d: %s", code, exitBudgetExhausted, stderr)
	}
}

// A private answer's dry run reads no readings (issue 60): its output is
// byte for byte the same for readings inside the model, readings of two
// sources (refused by the charged run) and a file that is not CSV at all,
// so it answers nothing about where a source is; a path that cannot be
// opened is still named (exit 3).
func TestPrivateAnswerDryRunReadsNoReadings(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	ledger := filepath.Join(dir, "l.json")
	initTestLedger(t, ledger)
	inModel := karateSourceReadings(t, filepath.Join(dir, "one.csv"), 3, 0.2)
	two := filepath.Join(dir, "two.csv")
	a, _ := os.ReadFile(karateSourceReadings(t, filepath.Join(dir, "a.csv"), 3, 0.2))
	b, _ := os.ReadFile(karateSourceReadings(t, filepath.Join(dir, "b.csv"), 30, 0.2))
	var sum strings.Builder
	la, lb := strings.Split(strings.TrimSpace(string(a)), "\n"), strings.Split(strings.TrimSpace(string(b)), "\n")
	sum.WriteString(la[0] + "\n")
	for i := 1; i < len(la); i++ {
		ka, va, _ := strings.Cut(la[i], ",")
		_, vb, _ := strings.Cut(lb[i], ",")
		fa, _ := strconv.ParseFloat(va, 64)
		fb, _ := strconv.ParseFloat(vb, 64)
		sum.WriteString(ka + "," + strconv.FormatFloat(fa+fb, 'g', -1, 64) + "\n")
	}
	if err := os.WriteFile(two, []byte(sum.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.csv")
	if err := os.WriteFile(garbage, []byte("not,a\nreadings file at all\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(values string, dry bool) (string, string, int) {
		args := []string{"locate", "--graph", "karate", "--private-answer", "--values", values, "--ledger", ledger,
			"--epsilon", "1", "--tau", "0.2", "--forecast-trials", "0", "--random-seed", "7", "-o", "json"}
		if dry {
			args = append(args, "--dry-run", "--epoch", "e1")
		} else { // a refusal is charged: its epoch is spent
			args = append(args, "--epoch", "e0")
		}
		return runPipelineCLI(t, context.Background(), nil, args...)
	}
	if _, stderr, code := run(two, false); code != exitBadInput || !strings.Contains(stderr, "outside the model") {
		t.Fatalf("the charged run of two sources: exit %d, %s", code, stderr)
	}
	var outs []string
	for _, values := range []string{inModel, two, garbage} {
		stdout, stderr, code := run(values, true)
		if code != 0 {
			t.Fatalf("dry run of %s: exit %d: %s", values, code, stderr)
		}
		outs = append(outs, stdout)
	}
	for i, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("the dry run's output depends on the readings (file %d):\n%s\nvs\n%s", i+1, o, outs[0])
		}
	}
	if _, stderr, code := run(filepath.Join(dir, "missing.csv"), true); code != exitBadInput || !strings.Contains(stderr, "missing.csv") {
		t.Errorf("a missing readings file: exit %d, %s", code, stderr)
	}
}
