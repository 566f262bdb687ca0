package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Shell completion: "graphcloak completion bash|zsh|fish|powershell" (cobra)
// prints a script; see README ("Shell completion"). Besides commands and
// flags it completes the values of these flags (and --graph's kinds,
// graphCompletions), on every command that has them — only values that command accepts (a completed value never exits
// 2 or 3 for being of the wrong kind).
var valueCompletions = map[string]func(cmd string) []string{
	"output":          func(string) []string { return []string{"table", "json"} },
	"log-format":      func(string) []string { return []string{"text", "json"} },
	"log-level":       func(string) []string { return []string{"debug", "info", "warn", "error"} },
	"header":          func(string) []string { return []string{"auto", "yes", "no"} },
	"estimator":       func(string) []string { return recovery.Names() },
	"mode":            func(string) []string { return []string{"write", "stream"} },
	"mechanism":       mechanismCompletions,
	"communities":     func(cmd string) []string { return community.SpecKinds.Completions(communityKinds(cmd)) },
	"duplicate-edges": func(string) []string { return laplacian.DuplicateRuleNames() },
}

// registerCompletions adds the value completions to cmd and its subcommands.
func registerCompletions(cmd *cobra.Command) {
	seen := map[*pflag.Flag]bool{}
	add := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			values, ok := valueCompletions[f.Name]
			if f.Name == "graph" { // the kinds its command takes (graphkinds.go)
				use := graphUseOf(f)
				values, ok = func(string) []string { return graphCompletions(use) }, true
			}
			if !ok || seen[f] {
				return
			}
			seen[f] = true
			_ = cmd.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				v := values(cmd.Name())
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

// mechanismCompletions are privacy's mechanism table's names
// (privacy.MechanismNamesFor): those a sensor draws on epoch open, those a
// release draws on the commands that release (release, serve, locate's
// private answer), every name, sorted, on those that only calibrate or
// simulate (calibrate, experiment).
func mechanismCompletions(cmd string) []string {
	switch cmd {
	case "open": // epoch open
		return privacy.MechanismNamesFor(privacy.SensorMechanism)
	case "release", "serve", "locate":
		return privacy.MechanismNamesFor(privacy.ReleasedMechanism)
	}
	return privacy.MechanismNamesFor(privacy.AnyMechanism)
}

// mechanismFlagHelp is --mechanism's help where every mechanism of the
// table is taken (calibrate, the experiments): "discrete (as release
// publishes), analytic or classic" (privacy.CalibrationMechanismHelp).
func mechanismFlagHelp() string { return privacy.CalibrationMechanismHelp() }
