package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/community"
)

// outputFile is an output opened before any work: "-" is standard output;
// a path is written to a temporary file in its directory (which must exist:
// no directory is created) and renamed into place by Commit, so a failed
// or interrupted run leaves no half-written file. Abort removes the
// temporary file unless Commit succeeded.
type outputFile struct {
	io.Writer
	file *os.File // nil for standard output
	path string
	done bool
}

func openOutput(flag, path string, stdout io.Writer) (*outputFile, error) {
	if path == "-" {
		return &outputFile{Writer: stdout, path: path}, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, inputErrorf("--%s %s is a directory: give a file name", flag, path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, inputErrorf("--%s %s: the directory %s does not exist (graphcloak creates no directories)", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, inputErrorf("--%s %s: %w", flag, path, err)
	}
	return &outputFile{Writer: f, file: f, path: path}, nil
}

// Stdout reports whether the output is standard output.
func (o *outputFile) Stdout() bool { return o.file == nil }

// Commit closes the temporary file and renames it to the path.
func (o *outputFile) Commit() error {
	if o.file == nil || o.done {
		return nil
	}
	if err := o.file.Close(); err != nil {
		return err
	}
	if err := os.Rename(o.file.Name(), o.path); err != nil {
		return err
	}
	o.done = true
	return nil
}

// Abort removes the temporary file if the output was not committed.
func (o *outputFile) Abort() {
	if o == nil || o.file == nil || o.done {
		return
	}
	o.file.Close()
	os.Remove(o.file.Name())
}

// budgetVerdict says what a --time-budget of budget seconds does to a
// computation by method ("dense", "columns" or "lanczos") that the model
// puts at estimate seconds. Only the sparse refinement stops at a budget.
func budgetVerdict(budget, estimate float64, method string) string {
	switch {
	case method == "dense":
		return fmt.Sprintf("%.3g s: ignored by the dense method, whose Δ2 is exact", budget)
	case estimate <= budget:
		return fmt.Sprintf("%.3g s: the modelled run fits, so Δ2 should come out exact", budget)
	default:
		return fmt.Sprintf("%.3g s: shorter than the modelled run, so Δ2 will be a proven upper bound, not the exact value", budget)
	}
}

// printReport prints the ranked community table (at most 15 rows); truth,
// when non-nil, marks the true source community.
func printReport(out io.Writer, rep *community.Report, truth map[int]bool) error {
	if rep.NoSource {
		_, err := fmt.Fprintln(out, rep.Reason)
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tCOMMUNITY\tPROBABILITY\tSIZE\t")
	for i, c := range rep.Communities {
		if i == 15 {
			fmt.Fprintf(tw, "…\t%d more\t\t\t\n", len(rep.Communities)-15)
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
