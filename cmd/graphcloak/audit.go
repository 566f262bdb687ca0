package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
	"github.com/graphcloak/graphcloak/stores"
)

// auditOptions are the flags of "audit" and "audit merge".
type auditOptions struct {
	graph, shard, save string
	fitTolerance       float64
	sensorNoise        float64
	precise            bool
	parts              []string // audit merge's arguments
}

const auditHelp = `audit runs the private answer's certified recovery over every source of the
graph — the pass that proves which sources no reading can tell apart at τ, the
slow part of an answer's audit — and saves its certificate, which
locate --private-answer, serve and plan reuse with --answer-cache FILE.

On a large graph the pass runs in shards on as many machines as you have:
each takes --shard i/N (blocks of 32 sources ≡ i mod N) and --save PART, and
"graphcloak audit merge PART... --save FILE" checks that they are every shard
of one pass (one graph, τ, --fit-tolerance and version) exactly once and writes
the certificate one process would (the same norms and classes). With
--ledger-key every part and the certificate are sealed under it. See
docs/sharding.md for Kubernetes Indexed Jobs, Slurm arrays and GNU parallel.`

func newAuditCmd(g *globalOptions) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Certify the private answer's recovery on a graph (every source), in shards if need be",
		Long:  auditHelp,
		Example: `  graphcloak audit --graph karate --tau 1 --save answer.json
  graphcloak audit --graph file:edges.csv --tau 1 --shard 0/4 --save part-0.json   # … 3/4
  graphcloak audit merge --graph file:edges.csv --tau 1 part-*.json --save answer.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAudit(cmd.Context(), g, o, g.stdout)
		},
	}
	f := cmd.Flags()
	addAuditFlags(cmd, o)
	f.StringVar(&o.shard, "shard", "", "run shard i of N (i/N, 0 ≤ i < N) of the pass and --save it as a part for audit merge")
	f.BoolVar(&o.precise, "precise", false, "run the pass with the precise action at once (needed by every shard when a single run says so)")
	merge := &cobra.Command{
		Use:   "merge PART...",
		Short: "Join the parts of a sharded audit into the certificate one process would write",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.parts = args
			return runAuditMerge(cmd.Context(), g, o, g.stdout)
		},
	}
	addAuditFlags(merge, o)
	cmd.AddCommand(merge)
	return cmd
}

func addAuditFlags(cmd *cobra.Command, o *auditOptions) {
	f := cmd.Flags()
	f.StringVar(&o.graph, "graph", "", "graph spec, as sensitivity --graph (neo4j, a generator such as karate, or file:PATH)")
	f.Float64Var(&o.fitTolerance, "fit-tolerance", recovery.DefaultFitTolerance,
		"relative misfit allowed between the readings and one source's diffusion at τ (as locate --private-answer)")
	addSensorNoiseFlag(f, &o.sensorNoise)
	f.StringVar(&o.save, "save", "", "the certificate (for --answer-cache) or, with --shard, the part to write")
	config.AddFlags(f, "tau", "header", "ledger-key", "uri", "user", "password", "database", "projection", "node-labels",
		"relationship-types", "relationship-weight-property", "node-key-property")
}

func (o *auditOptions) check() error {
	switch {
	case o.graph == "":
		return usageErrorf("--graph is required")
	case o.save == "":
		return usageErrorf("--save FILE is required: the certificate (or the part) is what audit makes")
	}
	return nil
}

func runAudit(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	opt := recovery.CertifierOptions{Tol: o.fitTolerance, SensorNoise: o.sensorNoise, Precise: o.precise, Progress: g.progress("answer audit")}
	if o.shard != "" {
		i, n, err := sensitivity.ParseShard(o.shard)
		if err != nil {
			return usageErrorf("--shard: %v", err)
		}
		opt.Shard = recovery.Shard{I: i, N: n}
	}
	cache, err := stores.AnswerCache(&g.cfg.Config, o.save)
	if err != nil {
		return err
	}
	lg, err := auditGraph(ctx, g, o.graph)
	if err != nil {
		return err
	}
	r, err := graphcloak.CertifyAnswers(ctx, lg.Graph, g.cfg.Privacy.Tau, opt, cache)
	if err != nil {
		return err
	}
	r.Graph, r.Shard = o.graph, o.shard
	return printAuditResult(g, out, r)
}

func runAuditMerge(ctx context.Context, g *globalOptions, o *auditOptions, out io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	cache, err := stores.AnswerCache(&g.cfg.Config, o.save)
	if err != nil {
		return err
	}
	parts, err := graphcloak.LoadAnswerParts(o.parts, cache.MACKey)
	if err != nil {
		return err
	}
	lg, err := auditGraph(ctx, g, o.graph)
	if err != nil {
		return err
	}
	r, err := graphcloak.MergeAudit(ctx, lg.Graph, g.cfg.Privacy.Tau, o.fitTolerance, parts, cache)
	if err != nil {
		return err
	}
	r.Graph = o.graph
	return printAuditResult(g, out, r)
}

// printAuditResult prints an audit's report; a shard's says how to
// merge the parts.
func printAuditResult(g *globalOptions, out io.Writer, r graphcloak.AuditReport) error {
	if g.output == "json" {
		return printJSON(out, r)
	}
	textreport.Audit(out, r, "graphcloak audit merge <every part> --save FILE")
	return nil
}

// auditGraph loads the audit's graph in key order, so that every shard of
// a pass — on any machine, from an edge list or Neo4j in any order —
// covers the same blocks of the same nodes.
func auditGraph(ctx context.Context, g *globalOptions, spec string) (*stores.Graph, error) {
	lg, err := loadExperimentGraph(ctx, g, spec, "")
	if err != nil {
		return nil, err
	}
	return lg.InKeyOrder()
}
