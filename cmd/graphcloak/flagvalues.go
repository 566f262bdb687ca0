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

// durationFlag is a time.Duration flag that takes plain seconds ("30") as
// well as a Go duration ("30s", "2m"): one convention for every duration.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}
func (f durationFlag) Type() string { return "duration" }
func (f durationFlag) Set(s string) error {
	secs, err := config.ParseSeconds(s)
	if err != nil {
		return err
	}
	*f.d = time.Duration(secs * float64(time.Second))
	return nil
}

// durationVar defines a duration flag (seconds or a Go duration).
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(durationFlag{d: p}, name, usage)
}
