package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAuditSaysItsSecondPass (issue 79): audit with --sensor-noise runs a
// pass of the norms at the default tolerance, then the pass at the
// tolerance the noise needs. The second is said before it starts — its
// number, why, and its estimate — and reports to its own progress
// ("answer audit, pass 2", or of the precise pass 3 when a source is too
// weak for the loose action): no progress line of the first pass comes
// after it (today's main said nothing and drew the second pass on the
// first one's finished log).
func TestAuditSaysItsSecondPass(t *testing.T) {
	isolateConfig(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(progressPeriodEnv, "1ns")
	save := filepath.Join(t.TempDir(), "answer.json")
	var out, errb strings.Builder
	args := []string{"audit", "--graph", "pa:n=600,m=2,seed=4", "--tau", "1", "--sensor-noise", "0.02", "--save", save, "--cache-dir", "none"}
	if code := runArgs(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errb.String())
	}
	firstPass := regexp.MustCompile(`^answer audit: \d+/\d+`)
	said := -1
	lines := strings.Split(errb.String(), "\n")
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "answer audit: pass 2 over every source"):
			said = i
			if !strings.Contains(line, "sensor noise") || !strings.Contains(line, "estimated ") {
				t.Errorf("the second pass said as %q: want why and its estimate", line)
			}
		case said >= 0 && firstPass.MatchString(line):
			t.Errorf("the first pass's progress %q after the second pass was said", line)
		}
	}
	if said < 0 {
		t.Fatalf("no line says the second pass before it starts:\n%s", errb.String())
	}
	if !strings.Contains(strings.Join(lines[said:], "\n"), "answer audit, pass ") {
		t.Errorf("the second pass reports to no progress of its own:\n%s", errb.String())
	}
}
