package main

import (
	"context"
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/spf13/cobra"
)

func newConfigCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the effective configuration",
		Args:  usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return errkind.Usagef("config needs a subcommand: show")
		},
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (password redacted) and where each value came from",
		Long: `show prints every configuration key with its effective value, the flag and
environment variable that set it, and its source: flag, env, file or default.
Precedence, highest first: flags > GRAPHCLOAK_* environment > config file >
defaults. The password is always shown as *****.`,
		Example: `  GRAPHCLOAK_NEO4J_URI=bolt://db:7687 graphcloak config show
  graphcloak config show --config ./graphcloak.yaml -o json`,
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runConfigShow(cmd.Context(), g, g.stdout)
		},
	}
	config.AddKeyFlags(show.Flags(), "output", "log-format") // every key can be set here, to see the effect
	cmd.AddCommand(show)
	return cmd
}

func runConfigShow(_ context.Context, g *globalOptions, out io.Writer) error {
	shown := g.cfg.Shown()
	if g.output == "json" {
		return printJSON(out, shown)
	}
	return shown.WriteText(out)
}
