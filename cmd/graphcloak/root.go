package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	output    string // "table" or "json"
	logFormat string // "text" or "json"
	stdout    io.Writer
	stderr    io.Writer
}

// newRootCmd builds the command tree. Each command lives in its own file
// with a constructor newXCmd(*globalOptions) and a plain runX function.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	g := &globalOptions{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "graphcloak",
		Short:         "Differentially private release of diffusion measurements on graphs",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if g.output != "table" && g.output != "json" {
				return usageErrorf("--output must be table or json, got %q", g.output)
			}
			if g.logFormat != "text" && g.logFormat != "json" {
				return usageErrorf("--log-format must be text or json, got %q", g.logFormat)
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVarP(&g.output, "output", "o", "table", "output format: table or json")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", "text", "log format on stderr: text or json")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	// Commands register here, one line each.
	root.AddCommand(
		newExperimentCmd(g),
		newSensitivityCmd(g),
		newCalibrateCmd(g),
		newKeygenCmd(g),
		newUnmaskCmd(g),
	)
	return root
}

// printJSON writes v as indented JSON followed by a newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// usageError marks a mistake in how the command was invoked.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// inputError marks bad input data (a malformed file, an invalid parameter value).
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func inputErrorf(format string, args ...any) error {
	return inputError{fmt.Errorf(format, args...)}
}
