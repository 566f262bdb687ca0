package textreport

import (
	"errors"
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/recovery"
)

// Diagnosis writes, for an operator who asked for it, what was measured
// of readings outside the private answer's model: the refusal's (err a
// *recovery.MismatchError) or the randomized response's (sum's answer).
// It is the one place the measured misfits leave the process, so the line
// says it is not private; nothing is written when there is nothing to say.
func Diagnosis(w io.Writer, sum *job.AnswerSummary, err error) {
	var mm *recovery.MismatchError
	text := ""
	switch {
	case errors.As(err, &mm):
		text = mm.Diagnosis()
	case err == nil && sum != nil && sum.Answer != nil:
		text = sum.Answer.Diagnosis
	}
	if text != "" {
		fmt.Fprintf(w, "diagnosis (NOT PRIVATE: for the operator only, never publish it): %s\n", text)
	}
}
