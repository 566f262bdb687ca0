package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/sourceview"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

type runsOptions struct {
	g     *globalOptions
	last  int
	scope string
	plot  string
}

func newRunsCmd(g *globalOptions) *cobra.Command {
	opts := &runsOptions{g: g}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "The history of releases and localisations recorded in Neo4j",
		Long: `List the run records graphcloak keeps in Neo4j (:GraphcloakRun), newest first:
status, scope and epoch, σ and ρ of releases, the top community and its
probability of localisations with their verdict (VERDICT: noise — not a
finding — or answer), and the duration. Read top to bottom, the TOP
COMMUNITY column shows how the likely source community changed over time.
A run still marked running whose lease has expired is shown as expired; the
next release or locate marks it abandoned. 'runs prune' deletes old records.
--scope (or privacy.scope in the configuration) shows one scope's runs; without
it, every scope's, as budget shows every scope.`,
		Example: `  graphcloak runs --last 24 --scope whisper
  graphcloak runs prune --keep 1000`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRuns(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.last, "last", 20, "show the newest N runs (0: all)")
	config.AddFlags(f, "scope") // as budget: given, one scope; else every scope
	f.StringVar(&opts.plot, "plot", "", "draw the top community's probability over time to this image file (.png, .svg, .pdf); noise verdicts crossed, chance dashed")
	config.AddFlags(f, config.ConnectionFlags...) // no graph is read: no projection flags
	cmd.AddCommand(newRunsPruneCmd(g))
	return cmd
}

// checkRuns checks the runs command's flags before Neo4j is read.
func checkRuns(opts *runsOptions) error {
	if opts.last < 0 {
		return errkind.Inputf("--last must be ≥ 0, got %d", opts.last)
	}
	return checkPlotPath(opts.plot)
}

func runRuns(ctx context.Context, opts *runsOptions, out io.Writer) error {
	if err := checkRuns(opts); err != nil {
		return err
	}
	opts.scope = opts.g.cfg.GivenScope() // as budget: given, one scope; else every scope
	st, err := stores.Open(ctx, opts.g.cfg, stores.Options{Neo4j: true})
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	rows, err := st.RunRows(ctx, opts.scope, opts.last, time.Now())
	if err != nil {
		return err
	}
	if opts.plot != "" {
		if err := plotHistory(opts, rows); err != nil {
			return err
		}
	}
	if opts.g.output == "json" {
		return printJSON(out, struct {
			Runs []job.RunRow `json:"runs"`
		}{rows})
	}
	return textreport.Runs(out, rows)
}

type runsPruneOptions struct {
	g   *globalOptions
	req stores.PruneRequest // --keep, --older-than
}

func newRunsPruneCmd(g *globalOptions) *cobra.Command {
	opts := &runsPruneOptions{g: g}
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete old run records (never running ones, never the ledger)",
		Long: `Delete finished run records beyond the newest --keep, or started longer than
--older-than ago, with the release values stored for them. Running records,
the published release of each scope and write property (the newest succeeded
one: its values are on the nodes) and the privacy ledger's charges are never
deleted. A release whose record
was pruned cannot be re-run as a no-op any more: its epoch stays charged, so
a retry exits 7.`,
		Example: `  graphcloak runs prune --keep 1000
  graphcloak runs prune --older-than 2160h`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.req.KeepGiven, opts.req.OlderGiven = cmd.Flags().Changed("keep"), cmd.Flags().Changed("older-than")
			return runRunsPrune(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.req.Keep, "keep", 0, "keep the newest N finished records")
	config.AddFlags(f, "scope") // as budget: given, one scope's records; else every scope's
	durationVar(f, &opts.req.OlderThan, "older-than", 0, "delete finished records started more than this long ago (e.g. 720h)")
	config.AddFlags(f, config.ConnectionFlags...) // no graph is read: no projection flags
	return cmd
}

// runRunsPrune checks prune's flags (stores.PruneRequest) and deletes the
// records they select.
func runRunsPrune(ctx context.Context, opts *runsPruneOptions, out io.Writer) error {
	keep, err := opts.req.Check()
	if err != nil {
		return err
	}
	st, err := stores.Open(ctx, opts.g.cfg, stores.Options{Neo4j: true})
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	n, err := st.PruneRuns(ctx, opts.g.cfg.GivenScope(), keep, opts.req.Cutoff(time.Now()))
	if err != nil {
		return err
	}
	if opts.g.output == "json" {
		return printJSON(out, struct {
			Deleted int `json:"deleted"`
		}{n})
	}
	fmt.Fprintf(out, "deleted %d run records\n", n)
	return nil
}

// plotHistory draws the localisations among rows (sourceview.History).
func plotHistory(opts *runsOptions, rows []job.RunRow) error {
	err := sourceview.History(opts.plot, opts.scope, rows)
	if errors.Is(err, sourceview.ErrNoLocalisation) {
		return errkind.Inputf("--plot: no localisation among the runs listed (locate records the top community)")
	}
	return err
}
