package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/recovery"
)

// Shell completion: "graphcloak completion bash|zsh|fish|powershell" (cobra)
// prints a script; see README ("Shell completion"). Besides commands and
// flags it completes the values of these flags, on every command that has
// them.
var valueCompletions = map[string]func() []string{
	"output":     func() []string { return []string{"table", "json"} },
	"log-format": func() []string { return []string{"text", "json"} },
	"log-level":  func() []string { return []string{"debug", "info", "warn", "error"} },
	"header":     func() []string { return []string{"auto", "yes", "no"} },
	"estimator":  recovery.Names,
	"mechanism":  func() []string { return []string{"discrete", "classic", "analytic"} },
	"communities": func() []string {
		return []string{"leiden", "louvain", "gds:leiden", "gds:louvain", "property:", "file:"}
	},
	"graph": func() []string {
		return []string{"neo4j", "karate", "file:", "gt:", "sbm:sizes=", "grid:rows=", "path:n=", "cycle:n=",
			"complete:n=", "star:n=", "pa:n=", "rgg:n="}
	},
}

// registerCompletions adds the value completions to cmd and its subcommands.
func registerCompletions(cmd *cobra.Command) {
	seen := map[*pflag.Flag]bool{}
	add := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			values, ok := valueCompletions[f.Name]
			if !ok || seen[f] {
				return
			}
			seen[f] = true
			_ = cmd.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				v := values()
				d := cobra.ShellCompDirectiveNoFileComp
				for _, x := range v {
					if strings.HasSuffix(x, ":") || strings.HasSuffix(x, "=") {
						d |= cobra.ShellCompDirectiveNoSpace // a prefix to complete further
					}
				}
				return v, d
			})
		})
	}
	add(cmd.LocalNonPersistentFlags())
	add(cmd.PersistentFlags())
	for _, c := range cmd.Commands() {
		registerCompletions(c)
	}
}
