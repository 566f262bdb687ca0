package main

import (
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/spf13/pflag"
)

// addSeedFlag adds --random-seed (the configuration key write.randomSeed:
// one type and default on every command), with --seed as its old spelling.
func addSeedFlag(f *pflag.FlagSet) {
	config.AddFlags(f, "random-seed")
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "seed" {
			name = "random-seed"
		}
		return pflag.NormalizedName(name)
	})
}

// durationVar defines a duration flag (seconds or a Go duration:
// config.DurationVar).
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	config.DurationVar(f, p, name, value, usage)
}

// communitiesFlag binds --communities to the configuration key
// recovery.communities (one partition for release, locate, plan and
// serve: the user's), with the command's help.
func communitiesFlag(f *pflag.FlagSet, usage string) {
	config.AddFlags(f, "communities")
	f.Lookup("communities").Usage = usage
}
