package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// collectHelp is the help text of "collect".
const collectHelp = `collect is the collector of a local release (docs/local.md): it verifies the
sensors' reports (JSON Lines, one report per line, from --reports FILE or - for
standard input) against the signed epoch order (--order, checked against the
coordinator's public key --coordinator-key) and the sensors' report-MAC keys
(--mac-keys, CSV node,reportMacKeyHex from keygen --mac-csv), and stores the
accepted noisy values in the epoch's journal under --journal DIR. It holds no
key that removes noise and never sees a raw reading.

A report is refused, with its reason, when it is: malformed (not a report's
JSON, or its value is not its grid integer), not-a-report (other JSON),
oversized (a line over 4096 bytes), other-epoch (another release id, scope or
epoch: a replay), unknown-node (not in the order, or no MAC key), bad-mac,
early or late (outside the order's window), closed (after the epoch was
closed), duplicate (the same report again: it is stored already) or
second-value (another value for a node that has reported).

Each accepted report is in the journal, fsynced, before it is acknowledged;
a collector killed and run again on the same journal keeps every accepted
report and stores none twice. The journal belongs to its order: one
collector at a time (another is refused, exit 8).

The epoch closes with --close, or by itself once the order's window has
ended: the release file is written to --out (default DIR/<releaseId>.release.json)
in the format release writes, with the nodes that did not report listed
(meta.missing); locate and unmask read it. Closing again writes the same file.
With --graph neo4j the closed epoch's values are also written to the
configured projection (--write-property, and the run id beside each value)
under a release run record, as release writes them (nothing charged: the
coordinator charged the epoch); the projection must be the order's graph.

Exit codes: 0 every report stored (accepted now, or a duplicate of a stored
one); 3 a report refused (the others are stored), or a bad order, key file,
journal or release file; 4 Neo4j unreachable; 8 the journal is held by
another collector.`

type collectOptions struct {
	g                         *globalOptions
	order, coordinatorKey     string
	macKeys, journal, reports string
	out, graph                string
	close                     bool
	stdin                     io.Reader
	now                       func() time.Time
}

func newCollectCmd(g *globalOptions) *cobra.Command {
	o := &collectOptions{g: g}
	cmd := &cobra.Command{
		Use:   "collect",
		Short: "Collect the sensors' noisy reports of an epoch (local release) into its journal and release file",
		Long:  collectHelp,
		Example: `  graphcloak collect --order order.json --coordinator-key coord.key.pub --mac-keys mac-keys.csv \
      --journal journal --reports reports.jsonl
  cat reports.jsonl | graphcloak collect --order order.json --coordinator-key coord.key.pub \
      --mac-keys mac-keys.csv --journal journal --reports - --close --out release.json -o json`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stdin = cmd.InOrStdin()
			return runCollect(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.order, "order", "", "the signed epoch order (epoch open --out)")
	f.StringVar(&o.coordinatorKey, "coordinator-key", "", "the coordinator's public key (keygen --signing writes FILE.pub)")
	f.StringVar(&o.macKeys, "mac-keys", "", "the sensors' report-MAC keys, CSV node,reportMacKeyHex (keygen --mac-csv; mode 0600)")
	f.StringVar(&o.journal, "journal", "", "directory of the epoch's journal (created if missing)")
	f.StringVar(&o.reports, "reports", "", "reports to collect, JSON Lines, from FILE or - for standard input (none: only --close)")
	f.BoolVar(&o.close, "close", false, "close the epoch after these reports and write its release file (also done once the window has ended)")
	f.StringVar(&o.out, "out", "", "the release file of the closed epoch (default DIR/<releaseId>.release.json)")
	graphFlag(f, &o.graph, "", graphDatabase, "once closed, also write the values to the configured projection's nodes under a release run")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "write-property", "batch-size", "concurrency", "duplicate-edges")
	return cmd
}

func runCollect(ctx context.Context, o *collectOptions, out io.Writer) error {
	switch {
	case o.order == "" || o.coordinatorKey == "" || o.macKeys == "" || o.journal == "":
		return usageErrorf("collect needs --order FILE, --coordinator-key FILE.pub, --mac-keys FILE and --journal DIR")
	case o.reports == "" && !o.close:
		return usageErrorf("give --reports FILE|- (reports to collect), --close (close the epoch), or both")
	case o.graph != "" && o.graph != stores.Neo4jSpec:
		return usageErrorf("--graph is %s or not given (the release file only), got %q", stores.Neo4jSpec, o.graph)
	}
	table := o.g.output != "json"
	req := stores.CollectRequest{Close: o.close, Out: o.out,
		Files: local.CollectorFiles{CoordinatorKey: o.coordinatorKey, Order: o.order, MACKeys: o.macKeys, Journal: o.journal, Now: o.now}}
	if table {
		req.Each = func(r local.Result) { printCollectLine(out, r) }
	}
	if o.reports != "" {
		in, closeIn, err := openReports(o)
		if err != nil {
			return err
		}
		defer closeIn()
		req.Reports = in
	}
	st, err := stores.Open(ctx, o.g.cfg, stores.Options{Logger: o.g.logger})
	if err != nil {
		return err
	}
	sum, err := st.Collect(req)
	if err != nil {
		return err
	}
	if sum.Released != nil && o.graph == stores.Neo4jSpec {
		if sum.RunID, err = publishCollected(ctx, o.g, sum.Released); err != nil {
			return err
		}
	}
	if table {
		err = printCollectSummary(out, sum)
	} else {
		err = printJSON(out, sum)
	}
	if err != nil {
		return err
	}
	if !sum.AllStored {
		return inputErrorf("collect: %d of %d reports refused (the accepted ones are stored)", sum.Received-sum.Accepted-sum.Refused[string(local.Duplicate)], sum.Received)
	}
	return nil
}

// openReports opens --reports (a file, or - for standard input).
func openReports(o *collectOptions) (io.Reader, func(), error) {
	if o.reports == "-" {
		return o.stdin, func() {}, nil
	}
	f, err := os.Open(o.reports)
	if err != nil {
		return nil, nil, inputErrorf("--reports: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// publishCollected writes the closed epoch's release to the configured
// projection under a release run, on stores connected for it.
func publishCollected(ctx context.Context, g *globalOptions, rel *privacy.Released) (string, error) {
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st, err := stores.Open(ctx, g.cfg, storesOptions(g, after, stores.Options{Neo4j: true, CheckProjection: true}))
	if err != nil {
		return "", err
	}
	defer st.Close(after.Context())
	env := jobEnv(g)
	env.Bookkeeping = after.Context
	return st.PublishCollected(ctx, rel, env)
}

func printCollectLine(out io.Writer, r local.Result) {
	if r.Reason == local.Accepted {
		fmt.Fprintf(out, "line %d\t%s\taccepted\n", r.Line, r.Node)
		return
	}
	node := r.Node
	if node == "" {
		node = "-"
	}
	fmt.Fprintf(out, "line %d\t%s\trefused %s: %s\n", r.Line, node, r.Reason, r.Error)
}

func printCollectSummary(out io.Writer, s *stores.Collected) error {
	fmt.Fprintf(out, "epoch %s of scope %s (release %s): %d reports received, %d accepted", s.Epoch, s.Scope, s.ReleaseID, s.Received, s.Accepted)
	for _, r := range local.Reasons {
		if n := s.Refused[string(r)]; n > 0 {
			fmt.Fprintf(out, ", %d %s", n, r)
		}
	}
	fmt.Fprintf(out, "\n%d of %d nodes have reported; ", s.Reported, s.Expected)
	if s.Closed {
		fmt.Fprintf(out, "closed, release file %s (%d missing)\n", s.Release, len(s.Missing))
		if s.MissingNote != "" {
			fmt.Fprintln(out, s.MissingNote)
		}
	} else {
		fmt.Fprintf(out, "open until %s\n", s.NotAfter.Format(time.RFC3339))
	}
	return nil
}
