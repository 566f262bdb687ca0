package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/job"
)

// plan audits the private answer on the graph for every ε (every source
// fitted, the loss over every edge within ε), and at a τ the graph cannot
// resolve it says answers would be refused instead of failing.
func TestPlanAnswerAudit(t *testing.T) {
	isolateConfig(t)
	stdout, stderr, code := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--epsilon", "1,4",
		"--modes", "private-answer", "--trials", "10", "--cache-dir", "none", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validate(t, "plan", stdout)
	var rep job.ForecastReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.AnswerAudits) != 2 || rep.AnswerRefused != "" {
		t.Fatalf("audits %+v, refused %q", rep.AnswerAudits, rep.AnswerRefused)
	}
	for _, a := range rep.AnswerAudits {
		if !a.Passed || a.SourcesChecked != 34 || a.EdgesChecked != 78 || a.WorstLoss > a.Epsilon*(1+1e-9) || a.WorstLoss < a.Epsilon/2 {
			t.Errorf("ε = %g: audit %+v", a.Epsilon, *a.Audit)
		}
	}
	// --answer-cache stores the model, and a second plan reads it back to
	// the same audit.
	cache := filepath.Join(t.TempDir(), "answer.json")
	for run := 0; run < 2; run++ {
		out, serr, c := runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--epsilon", "1,4",
			"--modes", "private-answer", "--trials", "10", "--answer-cache", cache, "--cache-dir", "none", "--log-level", "info", "-o", "json")
		var again job.ForecastReport
		err := json.Unmarshal([]byte(out), &again)
		for _, a := range again.AnswerAudits {
			// The second run's pass is the certificate's (restored); all
			// else it computed again, to the same numbers.
			if a.Restored != (run == 1) {
				t.Errorf("run %d: restored %v", run, a.Restored)
			}
			a.Restored = false
		}
		if c != 0 || err != nil || !reflect.DeepEqual(again.AnswerAudits, rep.AnswerAudits) {
			t.Fatalf("run %d with --answer-cache: exit %d (%v), audits %+v, want %+v\n%s", run, c, err, again.AnswerAudits, rep.AnswerAudits, serr)
		}
		if want := []string{"computing the model", "reused from the certificate"}[run]; !strings.Contains(serr, want) {
			t.Errorf("run %d: the log does not say %q:\n%s", run, want, serr)
		}
	}
	stdout, stderr, code = runPipelineCLI(t, context.Background(), nil, "plan", "--graph", "karate", "--epsilon", "1",
		"--modes", "private-answer", "--trials", "10", "--tau", "50")
	if code != 0 || !strings.Contains(stdout, "private answers would be refused at this τ") {
		t.Fatalf("τ = 50: exit %d\n%s%s", code, stdout, stderr)
	}
}
