package textreport

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/privacy"
)

// Calibration prints a Gaussian calibration as a table: the mechanism,
// σ, its zCDP ρ, the parameters, and the discrete Gaussian's σ.
func Calibration(out io.Writer, r privacy.CalibrationReport) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mechanism\t%s\n", r.Mechanism)
	fmt.Fprintf(tw, "sigma\t%.6g\n", r.Sigma)
	fmt.Fprintf(tw, "rho (zCDP)\t%.6g\n", r.Rho)
	fmt.Fprintf(tw, "sensitivity\t%g\n", r.Sensitivity)
	fmt.Fprintf(tw, "epsilon, delta\t%g, %g\n", r.Epsilon, r.Delta)
	fmt.Fprintf(tw, "discrete sigma (release)\t%.6g\n", r.DiscreteSigma)
	return tw.Flush()
}
