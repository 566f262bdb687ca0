package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/community"
)

// maxRankingRows is how many communities a ranking table shows before it
// summarises the rest in one line.
const maxRankingRows = 15

// Ranking prints the ranked community table (at most maxRankingRows rows);
// truth, when non-nil, marks the true source community.
func Ranking(out io.Writer, rep *community.Report, truth map[int]bool) error {
	if rep.NoSource {
		_, err := fmt.Fprintln(out, rep.Reason)
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tCOMMUNITY\tPROBABILITY\tSIZE\t")
	for i, c := range rep.Communities {
		if i == maxRankingRows {
			fmt.Fprintf(tw, "…\t%d more\t\t\t\n", len(rep.Communities)-maxRankingRows)
			break
		}
		mark := ""
		if truth[c.ID] {
			mark = "← true source"
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4f\t%d\t%s\n", c.Rank, c.Name, c.Share, c.Size, mark)
	}
	return tw.Flush()
}

// BudgetVerdict says what a time budget of budget seconds does to a Δ2
// computation by method ("dense", "columns" or "lanczos") that the model
// puts at estimate seconds. Only the sparse refinement stops at a budget.
func BudgetVerdict(budget, estimate float64, method string) string {
	switch {
	case method == "dense":
		return fmt.Sprintf("%.3g s: ignored by the dense method, whose Δ2 is exact", budget)
	case estimate <= budget:
		return fmt.Sprintf("%.3g s: the modelled run fits, so Δ2 should come out exact", budget)
	default:
		return fmt.Sprintf("%.3g s: shorter than the modelled run, so Δ2 will be a proven upper bound, not the exact value", budget)
	}
}
