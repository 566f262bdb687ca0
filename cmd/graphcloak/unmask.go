package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/stores"
)

// unmaskOptions are the flags of "unmask".
type unmaskOptions struct {
	g      *globalOptions
	req    stores.UnmaskRequest // --key, --release, --graph neo4j --release-run RUNID
	output string
}

func newUnmaskCmd(g *globalOptions) *cobra.Command {
	o := &unmaskOptions{g: g}
	cmd := &cobra.Command{
		Use:   "unmask",
		Short: "Remove keyed noise from a release (key holder only)",
		Long: `Regenerate the keyed noise of a release file and print the values without
noise, exact to the release grid: γ·(r_i − Z_i) = γ·round(y_i/γ) with γ = 2^-k.
Only releases drawn with a noise key can be unmasked, only with that key (a
wrong key gives meaningless numbers), and only by a build with the same
sampler version. The output contains the true values: treat it as secret.

A release written to Neo4j is unmasked from the database: --graph neo4j
--release-run RUNID (its run record holds the release metadata and the
projection it read, used unless projection flags or --projection are given;
the released values are read from its write property).`,
		Example: `  graphcloak unmask --key ~/.config/graphcloak/noise.key --release release.json -o json
  graphcloak unmask --key noise.key --graph neo4j --release-run run-20261121T060000Z-1a2b3c4d5e6f`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.req.Check(); err != nil {
				return err
			}
			o.output = g.output
			return runUnmask(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().StringVar(&o.req.KeyFile, "key", "", "noise key file written by keygen (mode 0600)")
	cmd.Flags().StringVar(&o.req.ReleaseFile, "release", "", "release file written by release")
	graphFlag(cmd.Flags(), &o.req.Graph, "", graphDatabase, "unmask a release written to the database (with --release-run)")
	cmd.Flags().StringVar(&o.req.ReleaseRun, "release-run", "", "run id of the keyed release in Neo4j")
	config.AddFlags(cmd.Flags(), "duplicate-edges", "uri", "user", "password", "database", "connect-timeout", "acquisition-timeout", "transaction-timeout", "projection", "node-labels", "relationship-types",
		"relationship-weight-property", "node-key-property")
	return cmd
}

func runUnmask(ctx context.Context, o *unmaskOptions, out io.Writer) error {
	r, err := o.req.Unmask(ctx, o.g.cfg, stores.Options{Logger: o.g.logger, Merged: o.g.sayMerges})
	if err != nil {
		return err
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	return textreport.Unmask(out, r)
}
