package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/privacy"
)

// unmaskOptions are the flags of "unmask".
type unmaskOptions struct {
	keyFile, releaseFile string
	output               string
}

func newUnmaskCmd(g *globalOptions) *cobra.Command {
	o := &unmaskOptions{}
	cmd := &cobra.Command{
		Use:   "unmask",
		Short: "Remove keyed noise from a release (key holder only)",
		Long: `Regenerate the keyed noise of a release file and print the values without
noise, exact to the release grid: γ·(r_i − Z_i) = γ·round(y_i/γ) with γ = 2^-k.
Only releases drawn with a noise key can be unmasked, only with that key (a
wrong key gives meaningless numbers), and only by a build with the same
sampler version. The output contains the true values: treat it as secret.`,
		Example: `  graphcloak unmask --key ~/.config/graphcloak/noise.key --release release.json -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unmask takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.keyFile == "" || o.releaseFile == "" {
				return usageErrorf("unmask needs --key FILE and --release FILE")
			}
			o.output = g.output
			return runUnmask(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().StringVar(&o.keyFile, "key", "", "noise key file written by keygen (mode 0600)")
	cmd.Flags().StringVar(&o.releaseFile, "release", "", "release file written by release")
	return cmd
}

type unmaskRow struct {
	Key      string  `json:"key"`
	Value    float64 `json:"value"`
	Released float64 `json:"released"`
}

type unmaskResult struct {
	Scope        string      `json:"scope"`
	Epoch        string      `json:"epoch"`
	GridExponent int         `json:"gridExponent"`
	N            int         `json:"n"`
	Rows         []unmaskRow `json:"rows"`
}

func runUnmask(_ context.Context, o *unmaskOptions, out io.Writer) error {
	key, err := privacy.LoadKey(o.keyFile)
	if err != nil {
		return inputError{err}
	}
	rel, err := privacy.ReadReleaseFile(o.releaseFile)
	if err != nil {
		return inputError{err}
	}
	vals, err := privacy.Unmask(key, rel)
	if err != nil {
		return inputError{err}
	}
	r := unmaskResult{Scope: rel.Meta.Scope, Epoch: rel.Meta.Epoch, GridExponent: rel.Meta.GridExponent, N: len(vals),
		Rows: make([]unmaskRow, len(vals))}
	for i := range vals {
		r.Rows[i] = unmaskRow{Key: rel.Keys[i], Value: vals[i], Released: rel.Values[i]}
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KEY\tVALUE\tRELEASED\n")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%.10g\t%.10g\n", row.Key, row.Value, row.Released)
	}
	return tw.Flush()
}
