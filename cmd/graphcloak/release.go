package main

import (
	"context"
	"io"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
	"github.com/spf13/cobra"
)

// releaseHelp is the release command's help text.
const releaseHelp = `release computes the certified sensitivity Δ2 of the heat-diffusion measurement
exp(−τL) on the graph, charges the privacy ledger, and publishes each node's
reading plus discrete Gaussian noise calibrated to Δ2, ε and δ.

Readings come from exactly one of:
  --values FILE|-          raw readings as CSV "node,value" (header optional) from a
                           file or standard input — what a sensor gateway sends. Only
                           the private values are written: raw readings never reach
                           the database (local privacy).
  --value-property P       a raw property already stored in Neo4j (the explicitly
                           named other mode; needs --graph neo4j).

On --graph neo4j the private values are written to --write-property, each
with the run's id in <write-property>_runId, and a (:GraphcloakRun) record
holds the run (running with a lease → succeeded, or failed). The released
values are stored in the database before the first node is written, so
re-running the same command with the same --epoch after a crash finishes the
write with exactly those values — no new charge, no new noise, exit 0 — and
re-running a completed epoch does nothing (exit 0). On other graphs the
release file goes to --out (checked writable before anything is charged). A
release file is never overwritten: the same scope and epoch at --out is
already published (exit 0, no charge); any other file there is refused
(exit 3) — give each epoch its own --out.
--estimate prints only how long the release (with --dry-run: the dry run)
will take, step by step (table or -o json): the readings are not read and
nothing is computed, written or charged.
--dry-run prints counts, the sensitivity method, memory and time estimates
and exactly the σ the release will use, and writes, charges and draws nothing.
It reads the ledger (read-only, with the same --ledger-key) and the epoch's
earlier run as the release would: it prints the scope's balance, the ρ the
release would charge and what it would do (charge and draw, resume, nothing),
and is refused with the release's exit code (5 over budget, 7 charged, 3 no
ledger or scope).

The budget: the scope (--scope) must have been created by the operator with
"graphcloak budget --init"; a release never creates, raises or resets a budget
(a missing ledger or scope exits 3 with the command to run).

What is protected. The guarantee holds when each reading is exp(−τL)·f0 at the
node (plus anything that does not depend on where the sources are) for the
--tau given, and --alpha is the reading mass of one protected unit times hops —
in reading units, e.g. the heat signature of one person. Readings made at
τ = 1 but released with --tau 10, or a source of mass 10^6 released with
--alpha 1, get an actual ε many orders of magnitude above --epsilon. When τ is
uncertain, give the smallest plausible τ; when the unit's mass is uncertain,
the largest plausible α. A warning goes to stderr when σ is below 1e-6 of the
readings' spread.

Exit codes: 3 bad input, missing ledger or scope; 4 Neo4j unreachable or a
timeout; 5 budget exhausted; 7 the epoch was charged but cannot be published
(use a new --epoch); 8 another release held the scope or the --out file for
longer than --wait; 0 also when the epoch was already published.`

func newReleaseCmd(g *globalOptions) *cobra.Command {
	opts := &releaseOptions{g: g}
	cmd := &cobra.Command{
		Use:   "release",
		Short: "Release private per-node values (Gaussian noise calibrated to the certified Δ2)",
		Long:  releaseHelp,
		Example: `  # Local privacy: raw readings from a gateway on stdin, private values to Neo4j
  export GRAPHCLOAK_NEO4J_PASSWORD=...
  graphcloak budget --init --ledger neo4j --scope building-7 --epsilon-total 10 --delta-total 1e-5
  gateway-dump | graphcloak release --graph neo4j --node-labels Room --relationship-types DOOR \
      --node-key-property roomId --values - --epsilon 1 --delta 1e-6 --ledger neo4j \
      --scope building-7 --epoch 2026-11-21T06:00

  # A generated graph, readings from a file, release file out
  graphcloak release --graph karate --values readings.csv --out release.json --ledger ledger.json

  # What would it cost?
  graphcloak release --graph neo4j --values readings.csv --dry-run -o json

  # How long would the dry run take (nothing computed)?
  graphcloak release --graph file:edges.csv --values readings.csv --dry-run --estimate`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.stdin = cmd.InOrStdin()
			return runRelease(cmd.Context(), opts, opts.g.stdout)
		},
	}
	f := cmd.Flags()
	graphFlag(f, &opts.graph, "", graphAny, "graph")
	f.StringVar(&opts.values, "values", "", "raw readings CSV node,value from FILE, or - for standard input")
	f.StringVar(&opts.out, "out", "", "write the release file here (required for graphs outside Neo4j)")
	f.BoolVar(&opts.estimate, "estimate", false, "only estimate how long the release (or with --dry-run the dry run) takes: Δ2, the forecasts and the write-back by their cost models (GDS's .estimate); reads no readings, computes, writes and charges nothing")
	f.BoolVar(&opts.dryRun, "dry-run", false, "plan only: counts, method, memory, time, σ, the ledger's balance and ρ, the utility forecast; nothing written or charged")
	f.IntVar(&opts.forecastTrials, "forecast-trials", 100, "simulated sources of the dry run's utility forecast, and of --refuse-at-chance's (0: none)")
	config.AddFlags(f, "refuse-at-chance")
	communitiesFlag(f, "the partition the dry run's forecasts, --refuse-at-chance and the private answer's forecast score, as locate reads it: "+communityKindsHelp("release"))
	f.Float64Var(&opts.sourceMass, "source-mass", 0, sourceMassUsage)
	f.StringVar(&opts.smooth, "smooth", "0", "extra diffusion τ′ applied to the readings before the noise: releases exp(−τ′L)·y, calibrated on Δ2 at τ+τ′; auto: the τ′ in {0, τ/2, τ, 2τ} with the best per-node forecast (compare with --dry-run)")
	f.StringVar(&opts.sensitivityCert, "sensitivity-cert", "", "use the Δ2 certificate written by sensitivity --save (refused, exit 3, unless it matches this graph and τ)")
	f.StringVar(&opts.sensitivityCache, "sensitivity-cache", "", "reuse the Δ2 certificate in this file while it verifies against the graph, τ and this version; otherwise compute Δ2 and store its certificate here (scheduled releases)")
	addCacheDirFlag(f, &opts.cacheDir)
	durationVar(f, &opts.timeBudget, "time-budget", 0, "compute Δ2 for at most this long and use the best proven upper bound reached (never an estimate; 0 = to completion)")
	durationVar(f, &opts.slot, "slot", time.Hour, "schedule slot of --epoch auto: the epoch is the slot's UTC start, so a retry within the slot is the same epoch")
	durationVar(f, &opts.wait, "wait", connector.DefaultLease, "wait this long for another live release of the same scope (or epoch, or --out file) to end; then exit 8")
	durationVar(f, &opts.lease, "lease", connector.DefaultLease, "Neo4j run lease: a run that sends no heartbeat for this long is taken for dead (abandoned) and its epoch can be resumed")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, config.PrivacyFlags...)
	// Budgets are set by budget --init only: a release ignores these
	// (with a warning), so help does not list them.
	hideFlags(f, "epsilon-total", "delta-total")
	config.AddFlags(f, "value-property", "write-property", "batch-size", "concurrency", "header", "duplicate-edges")
	return cmd
}

// runRelease releases (releaseOnce) and prints the summary.
func runRelease(ctx context.Context, opts *releaseOptions, out io.Writer) error {
	if opts.estimate {
		return runReleaseEstimate(ctx, opts, out)
	}
	sum, err := releaseOnce(ctx, opts)
	if err != nil {
		return err
	}
	if opts.g.output == "json" {
		return printJSON(out, sum)
	}
	return printReleaseTable(out, sum)
}

// printReleaseTable prints the summary as a table.
func printReleaseTable(out io.Writer, s *job.ReleaseSummary) error {
	return textreport.Release(out, s, flagName)
}
