package main

import (
	"github.com/spf13/cobra"

	"github.com/graphcloak/graphcloak/config"
)

// One convention for "-": where a flag reads or writes a stream of rows
// (CSV readings, an edge list, per-node results), "-" is standard input or
// output; where it names a file that must be a file (a key, a ledger, a
// release file, a certificate, a picture, the config), "-" is refused
// with exit 2 — never a file literally named "-".
var (
	// stdioFlags are, per command, the flags where "-" is a standard stream.
	stdioFlags = map[string]map[string]bool{
		"release":     {"values": true},
		"locate":      {"values": true, "out": true},
		"load":        {"values": true, "edges": true},
		"communities": {"out": true},
	}
	// fileFlags are the flags that name a file.
	fileFlags = []string{"out", "plot", "key", "ledger-key", "release", "released", "sensitivity-cert",
		"sensitivity-cache", "save", "ledger", "config", "values", "edges"}
)

// checkStdio refuses "-" for a file flag of cmd that takes no stream
// (config.CheckStdio).
func checkStdio(cmd *cobra.Command) error {
	return config.CheckStdio(cmd.Flags(), cmd.CommandPath(), fileFlags, stdioFlags[cmd.Name()])
}
