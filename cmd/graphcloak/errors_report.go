package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jsondoc"
	"github.com/spf13/cobra"
)

// errInterrupted is what a run stopped by SIGINT or SIGTERM reports.
var errInterrupted = fmt.Errorf("interrupted: %w", context.Canceled)

// packagePrefix matches the "privacy: Calibrate: " style prefixes that
// library errors carry for Go callers; the terminal shows sentences.
var packagePrefix = regexp.MustCompile(`(^|: )(?:(?:graphcloak|privacy|config|laplacian|connector|community|recovery|expm|datasets|experiment): )+(?:[A-Z][A-Za-z]*: )?`)

// errorMessage is err as a sentence for people: no package or function
// names, and the flags a user types for the parameters it names.
func errorMessage(err error) string {
	msg := flagText(err)
	for { // matches share their ": " separators, so repeat until stable
		next := packagePrefix.ReplaceAllString(msg, "$1")
		if next == msg {
			return msg
		}
		msg = next
	}
}

// errorDocument is the JSON form of an error on stderr under -o json.
type errorDocument struct {
	SchemaVersion int         `json:"schemaVersion"`
	Error         errorDetail `json:"error"`
}

type errorDetail struct {
	Message  string `json:"message"`
	Kind     string `json:"kind"` // errkind: usage, bad-input, unreachable, budget, database, charged, interrupted, internal
	ExitCode int    `json:"exitCode"`
}

// reportError writes err on stderr: "graphcloak: <sentence>", or under
// -o json one JSON object (errorDocument) so that scripts parse one format.
func reportError(w io.Writer, err error, asJSON bool) {
	msg := errorMessage(err)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(errorDocument{SchemaVersion: jsondoc.SchemaVersion,
			Error: errorDetail{Message: msg, Kind: errkind.Of(err).String(), ExitCode: exitCode(err)}})
		return
	}
	fmt.Fprintln(w, "graphcloak: "+msg)
}

// wantsJSON reports whether the run asked for -o json: the flag, or else
// GRAPHCLOAK_OUTPUT (the flag is known even when configuration failed).
func wantsJSON(root *cobra.Command, args []string) bool {
	if f := root.PersistentFlags().Lookup("output"); f != nil && f.Changed {
		return strings.EqualFold(f.Value.String(), "json")
	}
	if out, ok := outputArg(args); ok {
		return strings.EqualFold(out, "json")
	}
	return strings.EqualFold(os.Getenv("GRAPHCLOAK_OUTPUT"), "json")
}

// outputArg finds -o/--output in the raw arguments: flag parsing stops at
// the first bad flag, so "--frob -o json" never parsed -o, yet its error
// must be the JSON one "-o json --frob" gets. The last occurrence wins,
// as in parsing; nothing after "--" is a flag.
func outputArg(args []string) (string, bool) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return val, found
		case a == "-o" || a == "--output":
			if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		case strings.HasPrefix(a, "--output="):
			val, found = strings.TrimPrefix(a, "--output="), true
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			val, found = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "="), true
		}
	}
	return val, found
}
