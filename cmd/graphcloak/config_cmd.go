package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/graphcloak/graphcloak/config"
	"github.com/spf13/cobra"
)

func newConfigCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the effective configuration",
		Args:  usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErrorf("config needs a subcommand: show")
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
	for _, k := range config.Keys() { // every key can be set here, to see the effect
		if k.Flag != "" && k.Flag != "output" && k.Flag != "log-format" {
			config.AddFlags(show.Flags(), k.Flag)
		}
	}
	cmd.AddCommand(show)
	return cmd
}

// configShow is the JSON output of config show.
type configShow struct {
	File    string         `json:"file"`
	Config  config.Config  `json:"config"`
	Entries []config.Entry `json:"entries"`
}

func runConfigShow(_ context.Context, g *globalOptions, out io.Writer) error {
	l := g.cfg
	if g.output == "json" {
		return printJSON(out, configShow{File: l.File, Config: l.Redacted(), Entries: l.Entries()})
	}
	file := l.File
	if file == "" {
		file = "(none; default location " + config.DefaultFile() + ")"
	}
	fmt.Fprintf(out, "config file: %s\n\n", file)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\tENV\tFLAG")
	for _, e := range l.Entries() {
		v := fmt.Sprint(e.Value)
		if list, ok := e.Value.([]string); ok {
			v = strings.Join(list, ",")
		}
		flag := ""
		if e.Flag != "" {
			flag = "--" + e.Flag
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Key, v, e.Source, e.Env, flag)
	}
	return tw.Flush()
}
