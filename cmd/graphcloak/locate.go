package main

import (
	"context"
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// locateHelp is the locate command's help text.
const locateHelp = `locate runs the recovery estimator on released (private) values with the
release's σ and M = exp(−τL) — τ must be the release's — and ranks the
communities by recovered probability (posterior estimator) or mass. An
undetectable source is reported as such, never as a made-up community.

Released values come from --release FILE (a release file), or on --graph neo4j
from --released-property P (default: the configured write property), with σ
from --sigma or from the release's run record (--release-run RUNID, which
also supplies τ and, unless projection flags or --projection are given, the
projection). Communities: --communities leiden (computed, default; louvain also),
gds:leiden or gds:louvain (Neo4j Graph Data Science on the server: the same
projection is projected in GDS, streamed and dropped; Neo4j only),
property:NAME (an integer property, e.g. written by GDS Louvain; Neo4j only)
or file:PATH (CSV node,community).

On neo4j graphs the per-node mass, community id, community probability and
rank are written to --mass-property, --community-write-property,
--probability-property and --rank-property, and a run record is written last.
Elsewhere the per-node results go to --out FILE (CSV) when given.

--mode stream (GDS's .stream) writes nothing to Neo4j (no properties, no run
record): the per-node results go to standard output as CSV (the summary on
standard error), or with -o json as the summary with a "nodes" array.

--estimate prints only how long the localisation (with --private-answer: the
answer, its audit included) will take, step by step (table or -o json):
nothing is located, charged or written.

--dry-run prints the plan after every check a localisation makes (the
release's σ, τ, graph fingerprint and values' digest, the outputs'
ownership): the communities, the properties it would write and the
utility forecast; nothing is located or written, no run record, no file.
With --private-answer it prints the calibration (the ρ the answer would
charge), the scope's balance now and the forecast, refused as the answer
would be (exit 5 over budget, 7 epoch already charged); nothing is
charged, drawn or written.`

func newLocateCmd(g *globalOptions) *cobra.Command {
	opts := &locateOptions{g: g}
	cmd := &cobra.Command{
		Use:   "locate",
		Short: "Recover the sources of released values and rank the source communities",
		Long:  locateHelp,
		Example: `  # After "graphcloak release --graph karate --values readings.csv --out release.json"
  graphcloak locate --graph karate --release release.json

  # In Neo4j, with the communities GDS Louvain wrote; σ, τ and the projection
  # from the release's run record
  graphcloak locate --graph neo4j --release-run run-20261121T060000Z-1a2b3c4d5e6f \
      --communities property:louvain -o json

  # The same, streamed: per-node results on stdout, nothing written
  graphcloak locate --graph neo4j --release-run latest --scope building-7 --mode stream

  # How long would it take (nothing computed)?
  graphcloak locate --graph file:edges.csv --release release.json --estimate

  # What would a private answer charge, and how often would it be right?
  graphcloak locate --graph karate --private-answer --values readings.csv --ledger ledger.json \
      --epsilon 1 --tau 0.2 --dry-run`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.stdin = cmd.InOrStdin()
			opts.communities = opts.g.cfg.Recovery.Communities
			if err := opts.privateAnswer.model.check(cmd.Flags()); err != nil {
				return err
			}
			if opts.estimate {
				return runLocateEstimate(cmd.Context(), opts, opts.g.stdout)
			}
			if opts.privateAnswer.enabled {
				return runPrivateAnswer(cmd.Context(), opts, opts.g.stdout)
			}
			return runLocate(cmd.Context(), opts, opts.g.stdout)
		},
	}
	addLocateFlags(cmd.Flags(), opts)
	return cmd
}

// addLocateFlags defines locate's flags on f, bound to opts (the private
// answer's among them: addAnswerFlags).
func addLocateFlags(f *pflag.FlagSet, opts *locateOptions) {
	graphFlag(f, &opts.graph, "", graphAny, "graph")
	f.StringVar(&opts.released, "release", "", "release file written by release --out (as in unmask)")
	f.StringVar(&opts.released, "released", "", "old spelling of --release")
	_ = f.MarkHidden("released")
	f.StringVar(&opts.releasedProperty, "released-property", "", "Neo4j property holding the released values (default: --write-property)")
	f.StringVar(&opts.releaseRun, "release-run", "", "run id of the release whose run record gives σ and τ (Neo4j); latest: the newest succeeded release of --scope")
	f.Float64Var(&opts.sigma, "sigma", 0, "σ of the released values (with --released-property)")
	communitiesFlag(f, "communities: "+communityKindsHelp("locate"))
	f.Float64Var(&opts.resolution, "resolution", 1, "modularity resolution γ of leiden/louvain: larger γ, smaller communities")
	f.StringVar(&opts.out, "out", "", "write per-node results as CSV key,mass,weight,community,probability,rank")
	f.StringVar(&opts.plot, "plot", "", "draw the graph to this image file (.png, .svg, .pdf): communities with their probability, nodes coloured by --plot-value")
	f.StringVar(&opts.plotValue, "plot-value", "posterior", "what colours the nodes in --plot: posterior (probability of being the source) or released (the private values)")
	f.StringVar(&opts.mode, "mode", "write", "write (results to Neo4j with "+graphNeo4j+") or stream (per-node results on standard output; nothing written)")
	f.BoolVar(&opts.estimate, "estimate", false, "only estimate how long the localisation (or the private answer) takes: communities, the forecast, the answer audit and the write-back by their cost models (GDS's .estimate); nothing located, charged or written")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print the plan (σ, τ, communities, outputs, forecast; with --private-answer the calibration and ρ): nothing located, charged or written")
	f.IntVar(&opts.forecastTrials, "forecast-trials", job.LocateForecastTrials, "simulated sources of the utility forecast printed beside the answer (0: no forecast)")
	f.Float64Var(&opts.sourceMass, "source-mass", 0, sourceMassUsage)
	addAnswerFlags(f, &opts.privateAnswer)
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "header", "duplicate-edges")
	config.AddFlags(f, "tau", "scope", "estimator", "sources", "write-property", "mass-property", "community-write-property",
		"probability-property", "rank-property", "batch-size", "concurrency", "random-seed")
}

// runLocate locates (locateOnce) and prints the summary.
func runLocate(ctx context.Context, opts *locateOptions, out io.Writer) error {
	summary, out, err := locateOnce(ctx, opts, out)
	if err != nil {
		return err
	}
	return printLocateSummary(opts.g, out, summary)
}

// printLocateSummary prints a localisation's summary: its JSON, or its
// text (a dry run's plan).
func printLocateSummary(g *globalOptions, out io.Writer, s *job.LocateSummary) error {
	if g.output == "json" {
		return printJSON(out, s)
	}
	return textreport.Locate(out, s)
}
