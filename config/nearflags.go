package config

import (
	"strings"

	"github.com/spf13/pflag"
)

// NearFlags lists, as typed ("--name"), the visible flags of fs that a
// misspelt name may have meant: those within two edits of it or starting
// with it, in the order fs visits them (by name, unless fs sorts none).
func NearFlags(fs *pflag.FlagSet, name string) []string {
	var near []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if editDistance(name, f.Name) <= 2 || strings.HasPrefix(f.Name, name) {
			near = append(near, "--"+f.Name)
		}
	})
	return near
}
