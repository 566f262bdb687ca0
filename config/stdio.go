package config

import (
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/spf13/pflag"
)

// CheckStdio refuses (usage) "-" as the value of a flag of fs among
// fileFlags, those naming a file, unless streams says the command reads
// or writes a stream of rows there (CSV readings, an edge list, per-node
// results): a key, a ledger, a release file, a certificate, a picture or
// the config is never a file literally named "-". command is the
// command's path, as the message names it.
func CheckStdio(fs *pflag.FlagSet, command string, fileFlags []string, streams map[string]bool) error {
	for _, name := range fileFlags {
		f := fs.Lookup(name)
		if f == nil || f.Value.String() != "-" || streams[name] {
			continue
		}
		return errkind.Usagef("--%s -: %s %s needs a file here, not standard input or output", name, command, "--"+name)
	}
	return nil
}
