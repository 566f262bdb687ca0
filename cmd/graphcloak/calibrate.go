package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/privacy"
)

// calibrateOptions are the flags of "calibrate".
type calibrateOptions struct {
	sensitivity, epsilon, delta float64
	mechanism                   string
	output                      string
}

func newCalibrateCmd(g *globalOptions) *cobra.Command {
	o := &calibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Noise scale σ for one Gaussian release under (ε, δ)-DP",
		Long: `Compute the standard deviation σ of Gaussian noise that makes one release of a
value with L2 sensitivity Δ (ε, δ)-differentially private, and its zCDP cost
ρ = Δ²/(2σ²).

Mechanisms:
  analytic  (default) the smallest σ with Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) ≤ δ
            (Balle & Wang 2018, Thm 8), valid for every ε > 0, for continuous noise
  classic   σ = √(2 ln(1.25/δ))·Δ/ε, proven only for ε < 1 (refused otherwise)
  discrete  σ = Δ/√(2ρ) with ρ the zCDP budget of (ε, δ) by Canonne–Kamath–Steinke:
            what "release" uses for its discrete Gaussian noise (before the grid
            rounding widens Δ slightly)

The output also shows the discrete σ, since released noise is a discrete Gaussian.`,
		Example: `  graphcloak calibrate --sensitivity 1 --epsilon 1 --delta 1e-5
  graphcloak calibrate --sensitivity 0.0123 --epsilon 0.5 --delta 1e-6 --mechanism classic -o json`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("sensitivity") {
				return errkind.Usagef("calibrate needs --sensitivity")
			}
			// ε and δ come through the one configuration path, as in release.
			o.epsilon, o.delta = g.cfg.Privacy.Epsilon, g.cfg.Privacy.Delta
			o.output = g.output
			if !cmd.Flags().Changed("mechanism") {
				o.mechanism = g.cfg.Privacy.Mechanism // privacy.mechanism, as release reads it
			}
			return runCalibrate(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&o.sensitivity, "sensitivity", 0, "L2 sensitivity Δ2 > 0 (see graphcloak sensitivity)")
	config.AddFlags(f, "epsilon", "delta")
	f.StringVar(&o.mechanism, "mechanism", "discrete", mechanismFlagHelp())
	return cmd
}

func runCalibrate(_ context.Context, o *calibrateOptions, out io.Writer) error {
	r, err := privacy.CalibrateNamed(o.mechanism, privacy.CalibrationParams{Sensitivity: o.sensitivity, Epsilon: o.epsilon, Delta: o.delta})
	if err != nil {
		return err
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	return textreport.Calibration(out, r)
}
