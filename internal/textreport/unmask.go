package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/privacy"
)

// Unmask prints an unmasked release as a table: each node's key, its
// value without noise and its released value, to ten significant digits.
func Unmask(out io.Writer, r *privacy.UnmaskReport) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KEY\tVALUE\tRELEASED\n")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%.10g\t%.10g\n", row.Key, row.Value, row.Released)
	}
	return tw.Flush()
}
