package config

import (
	"time"

	"github.com/spf13/pflag"
)

// durationFlag is a time.Duration flag that takes plain seconds ("30") as
// well as a Go duration ("30s", "2m"), as ParseSeconds does: one
// convention for every duration, configuration key or not.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}
func (f durationFlag) Type() string { return "duration" }
func (f durationFlag) Set(s string) error {
	secs, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*f.d = time.Duration(secs * float64(time.Second))
	return nil
}

// DurationVar defines on fs a duration flag (seconds or a Go duration)
// stored in p, value by default.
func DurationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(durationFlag{d: p}, name, usage)
}
