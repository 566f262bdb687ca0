package config

import (
	"slices"

	"github.com/spf13/pflag"
)

// AddKeyFlags defines the flag of every configuration key that has one
// (AddFlags) on fs, except those named in except: a command that shows
// the configuration takes them all, to show their effect.
func AddKeyFlags(fs *pflag.FlagSet, except ...string) {
	for _, k := range Keys() {
		if k.Flag != "" && !slices.Contains(except, k.Flag) {
			AddFlags(fs, k.Flag)
		}
	}
}
