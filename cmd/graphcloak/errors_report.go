package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jsondoc"
	"github.com/spf13/cobra"
)

// errInterrupted is what a run stopped by SIGINT or SIGTERM reports.
var errInterrupted = fmt.Errorf("interrupted: %w", context.Canceled)

// errorMessage is err as a sentence for people (errkind.Sentence): no
// package or function names, and the flags a user types for the
// parameters it names.
func errorMessage(err error) string { return errkind.Sentence(err, flagName) }

// reportError writes err on stderr: "graphcloak: <sentence>", or under
// -o json one JSON object (errkind.Document) so that scripts parse one
// format.
func reportError(w io.Writer, err error, asJSON bool) {
	msg := errorMessage(err)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(errkind.Document{SchemaVersion: jsondoc.SchemaVersion,
			Error: errkind.Detail{Message: msg, Kind: errkind.Of(err).String(), ExitCode: exitCode(err)}})
		return
	}
	fmt.Fprintln(w, "graphcloak: "+msg)
}

// wantsJSON reports whether the run asked for -o json: the flag, as
// parsed or else as found in args, or else GRAPHCLOAK_OUTPUT
// (config.WantsJSON: the flag is known even when configuration failed).
func wantsJSON(root *cobra.Command, args []string) bool {
	return config.WantsJSON(root.PersistentFlags().Lookup("output"), args)
}
