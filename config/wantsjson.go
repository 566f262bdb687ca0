package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// WantsJSON reports whether a run asked for -o json: output, the
// --output flag, as parsed when it was given, else as found in args
// (OutputArg: parsing may have stopped before it), else
// GRAPHCLOAK_OUTPUT — known even when loading the configuration failed.
func WantsJSON(output *pflag.Flag, args []string) bool {
	if output != nil && output.Changed {
		return strings.EqualFold(output.Value.String(), "json")
	}
	if out, ok := OutputArg(args); ok {
		return strings.EqualFold(out, "json")
	}
	return strings.EqualFold(os.Getenv("GRAPHCLOAK_OUTPUT"), "json")
}

// SuggestFlag adds "did you mean --X?" to pflag's "unknown flag: --Y"
// when one to three flags of fs are near Y (NearFlags); any other error
// is returned as it is.
func SuggestFlag(fs *pflag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	best := NearFlags(fs, name)
	if len(best) == 0 || len(best) > 3 {
		return err
	}
	return fmt.Errorf("%w; did you mean %s?", err, strings.Join(best, " or "))
}
