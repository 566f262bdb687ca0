package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/privacy"
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

// driftFlag is --drift-hops: "any" (privacy.DriftAny) or a hop count,
// checked by privacy.SensorModel.Validate.
type driftFlag int

func (d *driftFlag) String() string {
	if int(*d) == privacy.DriftAny {
		return "any"
	}
	return strconv.Itoa(int(*d))
}

func (d *driftFlag) Set(s string) error {
	if s == "any" {
		*d = privacy.DriftAny
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > privacy.MaxDriftHops {
		return fmt.Errorf("is %q: want any, or a hop count in 0..%d", s, privacy.MaxDriftHops)
	}
	*d = driftFlag(v)
	return nil
}

func (*driftFlag) Type() string { return "any|hops" }
