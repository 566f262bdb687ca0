package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/privacy"
)

// budgetOptions are the flags of "budget" (the ledger, scope and budget
// come from the configuration: --ledger, --scope, --epsilon-total,
// --delta-total, GRAPHCLOAK_* or the config file).
type budgetOptions struct {
	g    *globalOptions
	init bool
}

func newBudgetCmd(g *globalOptions) *cobra.Command {
	o := &budgetOptions{g: g}
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Show (or create) the privacy ledger: spent and remaining budget per scope",
		Long: `Show the privacy spent and remaining per scope (a scope is one protected unit,
e.g. a deployment or graph, over its lifetime) in the configured ledger: a file
(--ledger FILE; when the configuration leaves it empty,
$XDG_STATE_HOME/graphcloak/ledger.json or ~/.local/state/graphcloak/ledger.json)
or the Neo4j database (--ledger neo4j).

Each release costs ρ = Δ_eff²/(2σ²) in zero-concentrated DP; costs add. The
lifetime budget (ε_total, δ_total) of every scope is fixed when the ledger is
created — by --init here, or by the first release with --epsilon-total and
--delta-total — and converted once into ρ_max with the Canonne–Kamath–Steinke
zCDP conversion, proven for the discrete Gaussian noise graphcloak releases. A
budget is never changed silently, and a release past it is refused (exit code
5), never clipped. --scope shows one scope; without it, every scope charged.`,
		Example: `  graphcloak budget --init --ledger ./ledger.json --epsilon-total 4 --delta-total 1e-6
  graphcloak budget --ledger ./ledger.json --scope building-7 -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("budget takes no arguments, got %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBudget(cmd.Context(), o, g.stdout)
		},
	}
	cmd.Flags().BoolVar(&o.init, "init", false, "create the ledger with the budget --epsilon-total, --delta-total (no-op if it exists with that budget)")
	config.AddFlags(cmd.Flags(), "ledger", "scope", "epsilon-total", "delta-total", "uri", "user", "password", "database")
	return cmd
}

// openBudgetLedger opens the configured ledger for reporting, or with
// create also for creation with the configured budget. It is the one place
// the budget command chooses a ledger implementation. A missing ledger
// file is not created without create (an error wrapping privacy.ErrNoLedger).
func openBudgetLedger(ctx context.Context, cfg *config.Config, create bool) (privacy.Ledger, func(), error) {
	var budget privacy.Budget
	if create {
		budget = privacy.Budget{Epsilon: cfg.Privacy.EpsilonTotal, Delta: cfg.Privacy.DeltaTotal}
		if err := budget.Validate(); err != nil {
			return nil, nil, inputError{err}
		}
	}
	if cfg.Privacy.Ledger == "neo4j" {
		client, err := connectNeo4j(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		l, err := connector.NewLedger(ctx, client, cfg.Neo4j.Database, budget)
		if err != nil {
			client.Close(ctx)
			return nil, nil, err
		}
		return l, func() { client.Close(context.WithoutCancel(ctx)) }, nil
	}
	path, err := ledgerPath(cfg)
	if err != nil {
		return nil, nil, err
	}
	l, err := privacy.OpenFileLedger(path, budget)
	if err != nil {
		return nil, nil, err
	}
	return l, func() {}, nil
}

// ledgerPath is the configured ledger file, or defaultLedgerPath when the
// configuration leaves it empty.
func ledgerPath(cfg *config.Config) (string, error) {
	if cfg.Privacy.Ledger != "" {
		return cfg.Privacy.Ledger, nil
	}
	return defaultLedgerPath()
}

// defaultLedgerPath is $XDG_STATE_HOME/graphcloak/ledger.json, else
// ~/.local/state/graphcloak/ledger.json.
func defaultLedgerPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "graphcloak", "ledger.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", inputErrorf("no ledger file: set --ledger or $XDG_STATE_HOME (%v)", err)
	}
	return filepath.Join(home, ".local", "state", "graphcloak", "ledger.json"), nil
}

// budgetResult is the JSON output of "budget".
type budgetResult struct {
	Ledger     string            `json:"ledger"`
	Budget     *privacy.Budget   `json:"budget,omitempty"`
	RhoBudget  float64           `json:"rhoBudget,omitempty"`
	Accounting string            `json:"accounting"`
	Scopes     []privacy.Balance `json:"scopes"`
}

func runBudget(ctx context.Context, o *budgetOptions, out io.Writer) error {
	cfg := &o.g.cfg.Config
	scope := ""
	if o.g.cfg.Sources["privacy.scope"] != config.FromDefault {
		scope = cfg.Privacy.Scope
	}
	l, closeLedger, err := openBudgetLedger(ctx, cfg, o.init)
	if errors.Is(err, privacy.ErrNoLedger) {
		return inputErrorf("%w (graphcloak budget --init --ledger FILE --epsilon-total E --delta-total D, or a first release)", err)
	}
	if err != nil {
		return err
	}
	defer closeLedger()
	bal, err := l.Balance(ctx, scope)
	if err != nil {
		return err
	}
	name := cfg.Privacy.Ledger
	if name != "neo4j" {
		if name, err = ledgerPath(cfg); err != nil {
			return err
		}
	}
	r := budgetResult{Ledger: name, Accounting: privacy.AccountingCKS20, Scopes: bal}
	if fl, ok := l.(*privacy.FileLedger); ok {
		b, rho := fl.Budget()
		r.Budget, r.RhoBudget = &b, rho
	} else if len(bal) > 0 {
		r.Budget, r.RhoBudget = &bal[0].Budget, bal[0].RhoBudget
	}
	if r.Scopes == nil {
		r.Scopes = []privacy.Balance{}
	}
	if o.g.output == "json" {
		return printJSON(out, r)
	}
	if r.Budget != nil {
		fmt.Fprintf(out, "ledger %s: budget ε=%g, δ=%g per scope (ρ_max=%.6g, zCDP/CKS20)\n",
			r.Ledger, r.Budget.Epsilon, r.Budget.Delta, r.RhoBudget)
	}
	if len(bal) == 0 {
		_, err := fmt.Fprintln(out, "no releases charged yet")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SCOPE\tRELEASES\tRHO SPENT\tRHO REMAINING\tEPSILON SPENT (AT δ)\n")
	for _, s := range bal {
		fmt.Fprintf(tw, "%s\t%d\t%.6g\t%.6g\t%.6g\n", s.Scope, s.Releases, s.RhoSpent, s.RhoRemaining, s.EpsilonSpent)
	}
	return tw.Flush()
}
