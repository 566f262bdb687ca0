package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// SensitivityReport prints a Δ2 report as a table (Sensitivity); a
// shard's (SensitivityShard) says how to merge it, name saying how the
// reader calls the certificate's file (sensitivity.ParamSaveFile).
func SensitivityReport(out io.Writer, r sensitivity.Report, name func(errkind.Param) string) error {
	if r.Shard != nil {
		return SensitivityShard(out, r,
			fmt.Sprintf("graphcloak sensitivity merge <all %d partial certificates> %s CERT", r.Shard.Count, name(sensitivity.ParamSaveFile)))
	}
	return Sensitivity(out, r)
}
