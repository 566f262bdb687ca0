package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// unmaskOptions are the flags of "unmask".
type unmaskOptions struct {
	g                    *globalOptions
	keyFile, releaseFile string
	graph, releaseRun    string // --graph neo4j --release-run RUNID
	output               string
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
			if err := checkUnmask(o); err != nil {
				return err
			}
			o.output = g.output
			return runUnmask(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().StringVar(&o.keyFile, "key", "", "noise key file written by keygen (mode 0600)")
	cmd.Flags().StringVar(&o.releaseFile, "release", "", "release file written by release")
	graphFlag(cmd.Flags(), &o.graph, "", graphDatabase, "unmask a release written to the database (with --release-run)")
	cmd.Flags().StringVar(&o.releaseRun, "release-run", "", "run id of the keyed release in Neo4j")
	config.AddFlags(cmd.Flags(), "duplicate-edges", "uri", "user", "password", "database", "connect-timeout", "acquisition-timeout", "transaction-timeout", "projection", "node-labels", "relationship-types",
		"relationship-weight-property", "node-key-property")
	return cmd
}

// checkUnmask checks that unmask's flags name a key and one release: a
// file, or a run in Neo4j.
func checkUnmask(o *unmaskOptions) error {
	fromDB := o.graph != "" || o.releaseRun != ""
	switch {
	case o.keyFile == "":
		return usageErrorf("unmask needs --key FILE")
	case fromDB && o.releaseFile != "":
		return usageErrorf("give either --release FILE or %s --release-run RUNID, not both", graphNeo4j)
	case fromDB && (o.graph != stores.Neo4jSpec || o.releaseRun == ""):
		return usageErrorf("unmask from the database needs %s and --release-run RUNID", graphNeo4j)
	case !fromDB && o.releaseFile == "":
		return usageErrorf("unmask needs --release FILE, or %s --release-run RUNID", graphNeo4j)
	}
	return nil
}

func runUnmask(ctx context.Context, o *unmaskOptions, out io.Writer) error {
	key, err := privacy.LoadKey(o.keyFile)
	if err != nil {
		return inputError{err}
	}
	var rel *privacy.Released
	if o.releaseRun != "" {
		rel, err = releasedFromNeo4j(ctx, o.g, o.releaseRun)
	} else if rel, err = privacy.ReadReleaseFile(o.releaseFile); err != nil {
		err = inputError{err}
	}
	if err != nil {
		return err
	}
	r, err := privacy.Unmasked(key, rel)
	if err != nil {
		return inputError{err}
	}
	if o.output == "json" {
		return printJSON(out, r)
	}
	return textreport.Unmask(out, r)
}

// releasedFromNeo4j rebuilds the release of run runID from the database
// (stores.Stores.ReleasedValues).
func releasedFromNeo4j(ctx context.Context, g *globalOptions, runID string) (*privacy.Released, error) {
	st, err := stores.Open(ctx, g.cfg, stores.Options{Neo4j: true, Logger: g.logger, Merged: g.sayMerges})
	if err != nil {
		return nil, err
	}
	defer st.Close(context.WithoutCancel(ctx))
	return st.ReleasedValues(ctx, runID)
}
