package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/internal/jobfiles"
	"github.com/graphcloak/graphcloak/job"
)

// Cache prints the store of work's report: what a prune removed (pruned),
// the store's size and bound, then one line a file, least recently used
// first as r lists them.
func Cache(out io.Writer, r job.StoreReport, pruned bool) {
	if pruned {
		fmt.Fprintf(out, "removed %d files (%d bytes)\n", len(r.Removed), r.Freed)
	}
	fmt.Fprintf(out, "store %s: %d files, %d bytes (bound %d bytes, %s)\n", r.Dir, r.Files, r.Bytes, r.MaxBytes, jobfiles.StoreMaxEnv)
	for _, e := range r.Entries {
		fmt.Fprintf(out, "  %s  %10d  %s\n", e.Used.UTC().Format("2006-01-02T15:04:05Z"), e.Bytes, e.Name)
	}
}
