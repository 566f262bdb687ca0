package config

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
)

// annotation marks a flag as bound to a configuration key; Load binds only
// flags carrying it, so a command's unrelated flag of the same name is
// never mistaken for configuration.
const annotation = "graphcloak_config_key"

// Flag groups for commands.
var (
	// Neo4jFlags are the connection and projection flags of a command that
	// reads a graph from Neo4j.
	Neo4jFlags = []string{"uri", "user", "password", "database", "connect-timeout", "acquisition-timeout",
		"transaction-timeout", "projection", "node-labels", "relationship-types", "relationship-weight-property", "node-key-property"}
	// ConnectionFlags are the flags of a command that talks to Neo4j but
	// reads no graph (runs, budget): Neo4jFlags without the projection.
	ConnectionFlags = []string{"uri", "user", "password", "database", "connect-timeout", "acquisition-timeout",
		"transaction-timeout"}
	// PrivacyFlags are the release parameters.
	PrivacyFlags = []string{"tau", "alpha", "epsilon", "delta", "mechanism", "epsilon-total",
		"delta-total", "key", "ledger", "ledger-key", "scope", "epoch"}
	// WriteFlags are the write-back flags.
	WriteFlags = []string{"write-property", "mass-property", "community-write-property",
		"probability-property", "rank-property", "batch-size", "concurrency", "random-seed"}
)

// AddFlags defines the named configuration flags on fs, each bound to its
// dotted key by Load. AddFlags panics on a name that is not a configuration
// flag (a programmer error).
func AddFlags(fs *pflag.FlagSet, names ...string) {
	for _, name := range names {
		if fs.Lookup(name) != nil {
			continue
		}
		k, ok := keyByFlag(name)
		if !ok {
			panic(fmt.Sprintf("config: no configuration flag %q", name))
		}
		short := ""
		if name == "output" {
			short = "o"
		}
		switch d := k.Default.(type) {
		case string:
			fs.StringP(name, short, d, k.Usage)
		case []string:
			tmp := pflag.NewFlagSet(name, pflag.ContinueOnError)
			tmp.StringSlice(name, d, k.Usage)
			fs.Var(noControlList{tmp.Lookup(name).Value}, name, k.Usage)
			if len(d) == 0 {
				fs.Lookup(name).DefValue = "" // no "(default [])" in the help
			}
		case bool:
			fs.Bool(name, d, k.Usage)
		case int:
			fs.Int(name, d, k.Usage)
		case int64:
			fs.Int64(name, d, k.Usage)
		case float64:
			if k.Seconds {
				fs.Var(&secondsFlag{v: d}, name, k.Usage)
			} else {
				fs.Float64(name, d, k.Usage)
			}
		default:
			panic(fmt.Sprintf("config: key %s has default of unsupported type %T", k.Name, d))
		}
		_ = fs.SetAnnotation(name, annotation, []string{k.Name})
	}
}

// noControlList is pflag's comma-separated list flag, refusing a value
// with a control character: pflag reads the list as CSV, so everything
// after a newline ("A\nB") would silently be dropped.
type noControlList struct{ pflag.Value }

func (l noControlList) Set(s string) error {
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%q contains the control character %q (names are separated by commas)", s, s[i])
	}
	return l.Value.Set(s)
}
