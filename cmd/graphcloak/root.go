package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/cost"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/internal/jsondoc"
	"github.com/graphcloak/graphcloak/internal/uniquekeys"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// globalOptions are the flags every command shares, and what the root
// command resolves once before any command runs.
type globalOptions struct {
	output     string // "table" or "json"
	logFormat  string // "text" or "json"
	configFile string // --config; "" means the default location
	quiet      bool   // --quiet: errors only
	stdout     io.Writer
	stderr     io.Writer
	// terminal is true when stderr is a terminal: progress bars are shown.
	terminal bool
	// cfg is the effective configuration (file, environment, flags),
	// validated once; logger writes to stderr in logFormat.
	cfg    *config.Loaded
	logger *slog.Logger
	// firstEstimates keeps the audit's model a first line's estimate
	// made, so the pass's own line says its figure (one figure a step).
	firstEstimates cost.FirstEstimates
}

// rootHelp is the root command's help text.
const rootHelp = `graphcloak releases heat-diffusion measurements on a graph with differential
privacy, recovers the likely sources and ranks their communities. Graphs come
from Neo4j (--graph neo4j) or from a generator or CSV edge list
(--graph karate, sbm:sizes=50x50,pin=0.2,pout=0.01, file:edges.csv).

Configuration: flags > GRAPHCLOAK_* environment > config file (--config, or
$XDG_CONFIG_HOME/graphcloak/config.yaml) > defaults; see "graphcloak config show".`

// flagUsageError makes a bad flag a usage error (exit 2), with a
// suggestion when one is near.
func flagUsageError(cmd *cobra.Command, err error) error {
	return errkind.Usagef("%w", flagSuggestion(cmd, err))
}

// strictSubcommands makes a parent command given an unknown subcommand a
// usage error (exit 2), not its help with exit 0.
func strictSubcommands(root *cobra.Command) {
	root.SuggestionsMinimumDistance = 2
	for _, c := range root.Commands() {
		c.SuggestionsMinimumDistance = 2
		if c.HasSubCommands() && c.Args == nil {
			c.Args = usageArgs
		}
		if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
}

// newRootCmd builds the command tree. Each command lives in its own file
// with a constructor newXCmd(*globalOptions) and a plain runX function.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	g := &globalOptions{stdout: stdout, stderr: stderr, output: "table", logFormat: "text"}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		g.terminal = true
	}
	g.logger = uniquekeys.NewLogger(stderr, "text", "warn")
	root := &cobra.Command{
		Use:           "graphcloak",
		Short:         "Differentially private release of diffusion measurements on graphs",
		Long:          rootHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.resolve(cmd)
		},
		// An unknown command is a usage error (exit 2), not a failure.
		Args: usageArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.configFile, "config", "", "config file (default $XDG_CONFIG_HOME/graphcloak/config.yaml if present)")
	config.AddFlags(root.PersistentFlags(), "output", "log-format", "log-level")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "only errors on stderr: no progress, no informational logs (--log-level error)")
	root.SetFlagErrorFunc(flagUsageError)

	// Commands register here, one line each.
	root.AddCommand(
		newExperimentCmd(g),
		newSensitivityCmd(g),
		newCalibrateCmd(g),
		newKeygenCmd(g),
		newSensorCmd(g),
		newUnmaskCmd(g),
		newBudgetCmd(g),
		newReleaseCmd(g),
		newServeCmd(g),
		newLocateCmd(g),
		newPlanCmd(g),
		newAuditCmd(g),
		newCacheCmd(g),
		newLoadCmd(g),
		newExportCmd(g),
		newProjectionCmd(g),
		newCommunitiesCmd(g),
		newRunsCmd(g),
		newDemoCmd(g),
		newConfigCmd(g),
		newVersionCmd(g),
		newEpochCmd(g),
		newCollectCmd(g),
	)
	registerCompletions(root)
	tidyFlagDefaults(root)
	// --version prints what "graphcloak version" prints.
	root.Version = buildinfo.Read().String()
	root.SetVersionTemplate("{{.Version}}\n")
	strictSubcommands(root)
	return root
}

// tidyFlagDefaults makes help print every command's list defaults as
// the flags are given (config.TidyDefaults).
func tidyFlagDefaults(cmd *cobra.Command) {
	config.TidyDefaults(cmd.LocalFlags())
	for _, s := range cmd.Commands() {
		tidyFlagDefaults(s)
	}
}

// hideFlags hides flags a command binds but does not use (it refuses or
// ignores them with a message): help lists only what a command uses.
func hideFlags(f *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := f.MarkHidden(n); err != nil {
			panic(err) // a programmer error: no such flag
		}
	}
}

// resolve loads the configuration for the command being run (its flags,
// the environment, the config file), prints any warning, validates it once
// and sets up output and logging. It runs before every command, and before
// any connection is made.
func (g *globalOptions) resolve(cmd *cobra.Command) error {
	if err := checkStdio(cmd); err != nil {
		return err
	}
	// projection save creates the config file it is given.
	newFile := cmd.Name() == "save" && cmd.HasParent() && cmd.Parent().Name() == "projection"
	l, err := config.Load(config.Options{File: g.configFile, Flags: cmd.Flags(), NewFile: newFile})
	if err != nil {
		return err
	}
	for _, w := range l.Warnings {
		fmt.Fprintln(g.stderr, w)
	}
	if err := l.CheckFormats(); err != nil {
		return err
	}
	if err := l.Validate(); err != nil {
		return err
	}
	if err := checkPaths(cmd, l); err != nil {
		return err
	}
	g.cfg = l
	g.output, g.logFormat = l.Output, l.LogFormat
	// serve is a daemon: it logs INFO unless told otherwise; commands are quiet.
	level, err := l.EffectiveLogLevel(g.quiet, cmd.Name() == "serve")
	if err != nil {
		return err
	}
	if g.quiet {
		g.terminal = false // no progress either
	}
	g.logger = uniquekeys.NewLogger(g.stderr, l.LogFormat, level)
	return nil
}

// usageArgs is cobra.NoArgs as a usage error (exit 2), with cobra's
// suggestions for a misspelt subcommand ("relase": did you mean release?).
func usageArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		hint := ""
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return errkind.Usagef("unknown command or argument %q for %q%s", args[0], cmd.CommandPath(), hint)
	}
	return nil
}

// flagSuggestion adds "did you mean --X?" to pflag's "unknown flag: --Y"
// when a flag of cmd is within two edits of Y or starts with it
// (config.SuggestFlag).
func flagSuggestion(cmd *cobra.Command, err error) error {
	// "graphcloak comunities --graph karate": the command is what is
	// misspelt, not the flag (cobra parsed the flags as the root's).
	if args := cmd.Flags().Args(); cmd.HasSubCommands() && len(args) > 0 {
		if uerr := usageArgs(cmd, args); uerr != nil {
			return uerr
		}
	}
	return config.SuggestFlag(cmd.Flags(), err)
}

// printJSON writes v as the JSON document of -o json (jsondoc.Write).
func printJSON(w io.Writer, v any) error { return jsondoc.Write(w, v) }

// checkPositiveFlag refuses (bad input) a value of --flag that is not a
// positive, finite number, in the words of errkind.CheckPositive: the one
// check of the commands' own numeric flags (--tau, --alpha, --sigma,
// --resolution, --epsilon …), named as the user typed them.
func checkPositiveFlag(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return errkind.Inputf("--%s must be positive and finite, got %v", flag, v)
	}
	return nil
}

// flagError names the flag whose value led to err. It keeps err's kind (a
// refused password stays "unreachable", not "bad input": errkind.Of takes
// the outermost kind); an error without a kind is bad input.
func flagError(flag string, err error) error {
	if errkind.Of(err) == errkind.Internal {
		return errkind.Inputf("%s: %w", flag, err)
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// noArgs refuses positional arguments as a usage error (exit 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return errkind.Usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

// noArgsNamed is noArgs naming the command by its name alone ("keygen
// takes no arguments").
func noArgsNamed(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return errkind.Usagef("%s takes no arguments, got %q", cmd.Name(), args)
	}
	return nil
}
