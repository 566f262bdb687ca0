package textreport

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/recovery"
)

// The diagnosis is the refusal's (a wrapped *recovery.MismatchError) or
// the randomized response's measured text, marked as not private, and
// nothing at all otherwise (another error, an answer with nothing to say).
func TestDiagnosisSaysWhatWasMeasured(t *testing.T) {
	refusal := &recovery.MismatchError{NoSignal: true}
	rr := &job.AnswerSummary{Answer: &answer.Result{Diagnosis: "a fit by two sources"}}
	for _, c := range []struct {
		name string
		sum  *job.AnswerSummary
		err  error
		want string // "" : nothing written
	}{
		{"refused", nil, fmt.Errorf("answer: %w", refusal), refusal.Diagnosis()},
		{"randomized response", rr, nil, "a fit by two sources"},
		{"an answer without a diagnosis", &job.AnswerSummary{Answer: &answer.Result{}}, nil, ""},
		{"a dry run", &job.AnswerSummary{DryRun: true}, nil, ""},
		{"another failure", rr, errors.New("ledger: over budget"), ""},
	} {
		var b bytes.Buffer
		Diagnosis(&b, c.sum, c.err)
		switch got := b.String(); {
		case c.want == "" && got != "":
			t.Errorf("%s: wrote %q, want nothing", c.name, got)
		case c.want != "" && (got != "diagnosis (NOT PRIVATE: for the operator only, never publish it): "+c.want+"\n"):
			t.Errorf("%s: wrote %q, want the marked diagnosis %q", c.name, got, c.want)
		case c.want != "" && !strings.Contains(got, "NOT PRIVATE"):
			t.Errorf("%s: not marked as not private: %q", c.name, got)
		}
	}
}
