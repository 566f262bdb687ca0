package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/local"
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
old-version (a version 1 report: its MAC does not cover the order), oversized
(a line over 4096 bytes), other-epoch (another release id, scope or epoch: a
replay), other-order (made for another order than --order: one split to
fewer nodes, or changed and re-signed), unknown-node (not in the order, or no MAC key), bad-mac,
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
	g   *globalOptions
	req stores.CollectRequest // the files, --reports, --close, --out, --graph
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
			o.req.Stdin = cmd.InOrStdin()
			return runCollect(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.req.Files.Order, "order", "", "the signed epoch order (epoch open --out)")
	f.StringVar(&o.req.Files.CoordinatorKey, "coordinator-key", "", "the coordinator's public key (keygen --signing writes FILE.pub)")
	f.StringVar(&o.req.Files.MACKeys, "mac-keys", "", "the sensors' report-MAC keys, CSV node,reportMacKeyHex (keygen --mac-csv; mode 0600)")
	f.StringVar(&o.req.Files.Journal, "journal", "", "directory of the epoch's journal (created if missing)")
	f.StringVar(&o.req.ReportsFrom, "reports", "", "reports to collect, JSON Lines, from FILE or - for standard input (none: only --close)")
	f.BoolVar(&o.req.Close, "close", false, "close the epoch after these reports and write its release file (also done once the window has ended)")
	f.StringVar(&o.req.Out, "out", "", "the release file of the closed epoch (default DIR/<releaseId>.release.json)")
	graphFlag(f, &o.req.Graph, "", graphDatabase, "once closed, also write the values to the configured projection's nodes under a release run")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, "write-property", "batch-size", "concurrency", "duplicate-edges")
	return cmd
}

func runCollect(ctx context.Context, o *collectOptions, out io.Writer) error {
	if err := o.req.Check(); err != nil {
		return err
	}
	table := o.g.output != "json"
	req := o.req
	if table {
		req.Each = func(r local.Result) { printCollectLine(out, r) }
	}
	st, err := stores.Open(ctx, o.g.cfg, stores.Options{Logger: o.g.logger})
	if err != nil {
		return err
	}
	sum, err := st.Collect(req)
	if err != nil {
		return err
	}
	if sum.Released != nil && req.Graph == stores.Neo4jSpec {
		opts := stores.Options{Logger: o.g.logger, Pull: o.g.pullProgress, Merged: o.g.sayMerges}
		if err := sum.Publish(ctx, o.g.cfg, opts, jobEnv(o.g)); err != nil {
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
	return sum.Err()
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
