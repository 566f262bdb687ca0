package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/stores"
)

// budgetOptions are the flags of "budget" (the ledger, scope and budget
// come from the configuration: --ledger, --scope, --epsilon-total,
// --delta-total, GRAPHCLOAK_* or the config file).
type budgetOptions struct {
	g   *globalOptions
	req stores.BudgetRequest // --init, --answer-epsilon, --answer-delta
}

// budgetHelp is the budget command's help text.
const budgetHelp = `Show the privacy spent and remaining per scope (a scope is one protected unit,
e.g. a deployment or graph, over its lifetime) in the configured ledger: a file
(--ledger FILE; when the configuration leaves it empty,
$XDG_STATE_HOME/graphcloak/ledger.json or ~/.local/state/graphcloak/ledger.json)
or the Neo4j database (--ledger neo4j).

Each release costs ρ = Δ_eff²/(2σ²) in zero-concentrated DP; costs add. The
lifetime budget (ε_total, δ_total) of a scope is set once, by the operator,
with --init (which creates the ledger and the scope --scope), and converted
into ρ_max with the Canonne–Kamath–Steinke zCDP conversion, proven for the
discrete Gaussian noise graphcloak releases. A release never creates, raises
or resets a budget: it refuses a missing ledger or scope (exit code 3, naming
the --init command), and a release past the budget is refused (exit code 5),
never clipped. Re-running --init with other totals is refused.

Private answers (locate --private-answer, pure ε-DP) are accounted one of two
ways, fixed at --init and never changed:
  --answer-epsilon 0 (the default, and every ledger created before the flag)
      answers cost ρ = min(ε²/2, ε) in zCDP like any release: one budget
      ρ_max = CKSRho(ε_total, δ_total) for everything. zCDP is loose for
      answers (one ε = 4 answer needs ε_total ≈ 17 at δ = 10⁻⁶).
  --answer-epsilon ε_A (0 < ε_A ≤ ε_total)
      answers are charged their ε against ε_A (Σε ≤ ε_A), and Gaussian
      releases their ρ against ρ_max = CKSRho(ε_total − ε_A, δ_total). Two
      fixed budgets side by side are (ε_total, δ_total)-DP however the
      releases and answers are interleaved and chosen (concurrent
      composition, docs/guarantee.md "What a budget buys"); letting the
      share follow the outputs would not be.
plan --epsilon-total E --delta-total D --answer-epsilon A shows what each
choice buys.

The file ledger is an append-only hash chain of charges. With --ledger-key
(a key from keygen) the chain is HMAC-keyed: nobody without the key can remove
or change a charge undetected, and high-water marks in the key's directory
refuse the ledger put back from an older copy, deleted or replaced, whatever
path reaches it; a keyed ledger whose mark cannot be written there (a key on a
read-only mount) charges nothing, and --init refuses it. Without a key the
chain only catches accidents (anyone who can write the file can recompute
SHA-256) and nothing sees a rollback or a deletion: keep the ledger where only
the operator can write, and back it up.

The table's ε's do not add up by hand: charges add as ρ and EPSILON SPENT is
their sum converted back at δ_total, so with δ_total = 10⁻⁶ a release at
ε = 1, δ = 10⁻⁵ then an answer at ε = 0.5 read 2.73 spent, while a budget
of 4 buys 10 such releases. Below the table a line works this out for the
budget, and one per scope says what one more release at --epsilon, --delta
and one more answer at --epsilon would cost and what the scope would then
read (plan prints the same line).

The deployment's sensor model is fixed at --init too, from the sensors' data
sheet: --sensor-noise ν (the rms of each reading's Gaussian noise as a fraction
of the source's mean reading) or --sensor-noise-rms s --min-source-mass m, and
--adc-quantum, --gain-tolerance, --faulty-sensors, --noise-peak (needs
--answer-delta), and --drift-hops (default any). Every locate --private-answer
on the scope then answers under it; one that states another model is refused
before any reading is read (exit 2), and answers run with --on-mismatch
nearest (readings outside the model answered at their nearest fit, no decision
published). With --drift-hops any the answer is randomized response at ε,
whose loss between any two centres is ε: whatever a faulty sensor, an ADC step
or a gain error does to the readings, the printed ε holds — proven, not
measured. --drift-hops d (0..3) calibrates as if α were ⌈α⌉·(1+2d) instead,
more accurate on some graphs, covering a centre moved up to d hops, which an
oracle measured and nothing proves (docs/guarantee.md, "Sensor imperfections").
A scope without a model (every ledger made before) answers under the model
each answer states.

--scope shows one scope (an unknown scope exits 3); without it, every scope.`

func newBudgetCmd(g *globalOptions) *cobra.Command {
	o := &budgetOptions{g: g}
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Show (or create) the privacy ledger: spent and remaining budget per scope",
		Long:  budgetHelp,
		Example: `  graphcloak keygen --out ledger.key
  graphcloak budget --init --ledger ./ledger.json --ledger-key ledger.key --scope building-7 --epsilon-total 4 --delta-total 1e-6
  graphcloak budget --init --ledger ./answers.json --scope building-9 --epsilon-total 8 --delta-total 1e-6 --answer-epsilon 4
  graphcloak budget --ledger ./ledger.json --scope building-7 -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return errkind.Usagef("budget takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.req.DriftHopsGiven = cmd.Flags().Changed("drift-hops")
			return runBudget(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().BoolVar(&o.req.Init, "init", false, "create the ledger and --scope with the budget --epsilon-total, --delta-total, --answer-epsilon (no-op if they exist with that budget; a different budget is refused)")
	cmd.Flags().Float64Var(&o.req.AnswerEpsilon, "answer-epsilon", 0, "with --init: the share ε_A of --epsilon-total fixed for private answers (charged their ε against it; Gaussian releases get CKSRho(ε_total − ε_A, δ_total)); 0: answers cost ρ = min(ε²/2, ε) in zCDP with everything else")
	cmd.Flags().Float64Var(&o.req.AnswerDelta, "answer-delta", 0, "with --init: the share δ_A of --delta-total fixed for the δ of private answers under --sensor-noise (each answer charged its δ against it; everything else converts at δ_total − δ_A); 0: only answers without --sensor-noise")
	addBudgetModelFlags(cmd.Flags(), &o.req.Sensor)
	o.req.DriftHops = privacy.DefaultDriftHops
	cmd.Flags().Var((*driftFlag)(&o.req.DriftHops), "drift-hops", "with --init and a sensor model: the drift allowance — how far the answer's centre may move under readings outside the Gaussian model (a faulty sensor, an ADC step, a gain error). any (default): anywhere, answered by randomized response at ε, proven for any readings; d in 0..3: d hops, calibrated as if α were ⌈α⌉·(1+2d), measured only (docs/guarantee.md)")
	config.AddFlags(cmd.Flags(), "ledger", "ledger-key", "scope", "epsilon-total", "delta-total", "epsilon", "delta", "uri", "user", "password", "database", "connect-timeout", "acquisition-timeout", "transaction-timeout")
	return cmd
}

// runBudget checks the flags (stores.BudgetRequest.Check), opens the
// ledger, creating the scope with --init, and prints its report.
func runBudget(ctx context.Context, o *budgetOptions, out io.Writer) error {
	cfg := &o.g.cfg.Config
	spec, err := o.req.Check(o.g.cfg)
	if err != nil {
		return err
	}
	st, err := stores.Open(ctx, o.g.cfg, stores.Options{Neo4j: cfg.Privacy.Ledger == "neo4j"})
	if err != nil {
		return err
	}
	defer st.Close(context.WithoutCancel(ctx))
	r, err := st.LedgerReport(ctx, spec.Create, spec.Scope)
	if err != nil {
		return withInitHint(cfg, err)
	}
	if o.g.output == "json" {
		return printJSON(out, r)
	}
	return textreport.Budget(out, r, cfg.Privacy.Epsilon, cfg.Privacy.Delta, flagName)
}

// addBudgetModelFlags adds budget --init's sensor model flags
// (privacy.SensorModel).
func addBudgetModelFlags(f *pflag.FlagSet, m *privacy.SensorModel) {
	f.Float64Var(&m.Noise, "sensor-noise", 0, "with --init: the deployment's sensor model — the rms of each reading's Gaussian noise as a fraction of the source's mean reading μ/n (0.005 = 0.5 %); every private answer on the scope runs under it")
	f.Float64Var(&m.NoiseRMS, "sensor-noise-rms", 0, "with --init: the sensor noise's rms in reading units, with --min-source-mass (instead of --sensor-noise)")
	f.Float64Var(&m.MinSourceMass, "min-source-mass", 0, "with --init and --sensor-noise-rms: the smallest source mass (sum of its readings) the answers' guarantee covers")
	addModelPartFlags(f, m)
}
