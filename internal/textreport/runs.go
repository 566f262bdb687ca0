package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/graphcloak/graphcloak/job"
)

// Runs prints the runs listing's table, one row per run in the order
// given; a column a run has no value for is left blank.
func Runs(out io.Writer, rows []job.RunRow) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED (UTC)\tCOMMAND\tSTATUS\tSCOPE\tEPOCH\tSIGMA\tRHO\tRHO LEFT\tTOP COMMUNITY\tP\tPUBLISHED\tVERDICT\tDURATION\tRUN")
	for _, r := range rows {
		sigma, rho, left, top, p, verdict, dur := "", "", "", "", "", "", ""
		if r.RhoRemaining != nil {
			left = fmt.Sprintf("%.4g", *r.RhoRemaining)
		}
		if r.Sigma > 0 {
			sigma = fmt.Sprintf("%.4g", r.Sigma)
		}
		if r.Rho > 0 {
			rho = fmt.Sprintf("%.4g", r.Rho)
		}
		if r.TopCommunity != "" {
			top, p = r.TopCommunity, fmt.Sprintf("%.3f", r.TopProbability)
		}
		if r.NoiseDominated != nil {
			verdict = "answer"
			if *r.NoiseDominated {
				verdict = "noise"
			}
		}
		if r.DurationMillis > 0 {
			dur = (time.Duration(r.DurationMillis) * time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.StartedAt.Format("2006-01-02 15:04:05"),
			r.Command, r.Status, r.Scope, r.Epoch, sigma, rho, left, top, p, r.PublishedCommunity, verdict, dur, r.RunID)
	}
	return tw.Flush()
}
