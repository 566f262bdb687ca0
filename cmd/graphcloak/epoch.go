package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/stores"
)

// epochOpenHelp is the help text of "epoch open".
const epochOpenHelp = `epoch open is the coordinator's step of a local release, where each sensor adds
its own noise (docs/local.md): for the graph, τ, α, ε and δ it certifies Δ2 as
release does (--sensitivity-cert, or --sensitivity-cache reused while it
verifies, else computed), calibrates σ exactly as a central release of the
same graph would, charges the ledger once for (--scope, --epoch), and writes
the signed epoch order to --out: the graph's fingerprint, τ, α, ε, δ, Δ2 and
its certificate's digest, the sampler (version 3, the grid 2^-k and σ̃²), a
fresh release id, the validity window and the node keys expected (all the
graph's nodes, or --nodes FILE, one key per line). It never sees a reading.

The order is signed with the coordinator's Ed25519 key (keygen --signing); a
sensor verifies it against the public key it was provisioned with.

Opening an epoch again is safe: with the order file at --out it re-publishes
it (exit 0, nothing charged, the same release id); a run stopped between the
charge and the order's publication is finished by the next (the order signed
first waits beside --out as .NAME.pending). An epoch charged with no order at
--out (a central release of the same epoch, or an order published at
another --out) is refused (exit 7); other
parameters for an opened epoch, or another epoch's order at --out, are
refused (exit 3).

The window: from --not-before (RFC 3339; default now) for --valid-for. With
--epoch auto the epoch is the --valid-for slot's UTC start and the window is
that slot.

Exit codes: 2 usage; 3 bad input (a key, the graph, a parameter, an order
file that is another epoch's); 4 Neo4j unreachable; 5 budget exhausted;
7 the epoch was charged before and its order is not at --out (give the
--out it was opened with, or open a new epoch).`

type epochOpenOptions struct {
	g        *globalOptions
	in       stores.EpochInputs // the graph, the Δ2 source, the keys, the window and --out
	cacheDir string
}

func newEpochCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "epoch",
		Short: "Open an epoch of a local release (sensors add their own noise)",
	}
	cmd.AddCommand(newEpochOpenCmd(g))
	return cmd
}

func newEpochOpenCmd(g *globalOptions) *cobra.Command {
	o := &epochOpenOptions{g: g}
	cmd := &cobra.Command{
		Use:   "open",
		Short: "Certify Δ2, calibrate σ, charge the epoch once and write the signed epoch order",
		Long:  epochOpenHelp,
		Example: `  graphcloak budget --init --ledger ledger.json --scope building-7 --epsilon-total 10 --delta-total 1e-5
  graphcloak keygen --signing --out coord.key
  graphcloak epoch open --graph karate --tau 1 --epsilon 1 --delta 1e-6 --ledger ledger.json \
      --scope building-7 --epoch 2026-11-27 --valid-for 1h --signing-key coord.key --out order.json -o json`,
		Args: noArgsNamed,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEpochOpen(cmd.Context(), o, g.stdout)
		},
	}
	f := cmd.Flags()
	in := &o.in
	graphFlag(f, &in.Graph, "", graphAny, "graph")
	f.StringVar(&in.Out, "out", "", "write the signed epoch order here (never overwritten by another epoch)")
	f.StringVar(&in.SigningKey, "signing-key", "", "the coordinator's Ed25519 signing key (keygen --signing; mode 0600)")
	f.StringVar(&in.Nodes, "nodes", "", "the node keys expected, one per line (default: every node of the graph)")
	f.StringVar(&in.KeyFingerprint, "key-fingerprint", "", "the master key's fingerprint (keygen --master prints it), written in the order and the release: unmask then refuses another key")
	f.StringVar(&in.NotBefore, "not-before", "", "start of the validity window, RFC 3339 (default: now)")
	durationVar(f, &in.ValidFor, "valid-for", time.Hour, "length of the validity window: reports after it are late")
	f.StringVar(&in.CertificatePath, "sensitivity-cert", "", "use the Δ2 certificate written by sensitivity --save (refused, exit 3, unless it matches this graph and τ)")
	f.StringVar(&in.CachePath, "sensitivity-cache", "", "reuse the Δ2 certificate in this file while it verifies; otherwise compute Δ2 and store its certificate here")
	addCacheDirFlag(f, &o.cacheDir)
	durationVar(f, &in.TimeBudget, "time-budget", 0, "compute Δ2 for at most this long and use the best proven upper bound reached (0 = to completion)")
	config.AddFlags(f, config.Neo4jFlags...)
	config.AddFlags(f, config.PrivacyFlags...)
	config.AddFlags(f, "duplicate-edges")
	hideFlags(f, "epsilon-total", "delta-total", "key", "mechanism")
	return cmd
}

func runEpochOpen(ctx context.Context, o *epochOpenOptions, out io.Writer) error {
	g := o.g
	o.in.Epoch, o.in.Now = g.cfg.Config.Privacy.Epoch, time.Now()
	if o.in.Graph == "" {
		return graphRequired()
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	req, err := o.in.Request()
	if err != nil {
		return err
	}
	if req.Spec, err = epochSpec(g, o.in, req.Epoch); err != nil {
		return err
	}
	if err := useWorkStore(g, o.cacheDir, &req.Spec); err != nil {
		return err
	}
	after := job.NewBookkeeping(ctx)
	defer after.Close()
	st, err := openEpochStores(ctx, g, req.Spec, after)
	if err != nil {
		return err
	}
	defer st.Close(after.Context())
	req.Bookkeeping = after.Context
	sum, err := st.OpenEpoch(ctx, req, jobEnv(g))
	if err != nil {
		return withInitHint(&g.cfg.Config, err)
	}
	if g.output == "json" {
		return printJSON(out, sum)
	}
	return printEpochOpen(out, sum)
}

func printEpochOpen(out io.Writer, s *stores.EpochOpened) error {
	what := "opened (charged ρ once)"
	switch {
	case s.Republished:
		what = "already open: the stored order re-published (nothing charged)"
	case s.Resumed && !s.Charged:
		what = "opened: the order signed by an earlier run published (charged by it, nothing charged now)"
	}
	_, err := fmt.Fprintf(out, `epoch %s of scope %s %s
order        %s (release %s)
graph        %d nodes, %d relationships; %d nodes expected
parameters   τ = %g, α = %g, ε = %g, δ = %g
noise        Δ2 = %.6g, σ = %.6g (grid 2^-%d, σ̃² = %d), ρ = %.6g
window       %s … %s
budget       ρ spent %.6g, remaining %.6g
`, s.Epoch, s.Scope, what, s.Out, s.ReleaseID, s.NodeCount, s.RelationshipCount, s.Expected, s.Tau, s.Alpha, s.Epsilon, s.Delta,
		s.Delta2, s.Sigma, s.GridExponent, s.GridVariance, s.Rho, s.NotBefore.Format(time.RFC3339), s.NotAfter.Format(time.RFC3339),
		s.RhoSpent, s.RhoRemaining)
	return err
}
