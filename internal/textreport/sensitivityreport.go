package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// SensitivityReport prints a Δ2 report as a table (Sensitivity); a
// shard's (SensitivityShard) says how to merge it.
func SensitivityReport(out io.Writer, r sensitivity.Report) error {
	if r.Shard != nil {
		return SensitivityShard(out, r,
			fmt.Sprintf("graphcloak sensitivity merge <all %d partial certificates> --save CERT", r.Shard.Count))
	}
	return Sensitivity(out, r)
}
