package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSeconds reads a duration given either way graphcloak accepts one
// everywhere: plain seconds ("15", "0.5") or a Go duration ("15s",
// "1m30s", "2h"). Negative, NaN and infinite values are refused.
func ParseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, fmt.Errorf("%q is not a duration ≥ 0", s)
		}
		return f, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration: give seconds (15) or a unit (15s, 2m, 1h)", s)
	case d < 0:
		return 0, fmt.Errorf("%q is not a duration ≥ 0", s)
	}
	return d.Seconds(), nil
}

// secondsFlag is a duration flag in seconds for configuration keys stored
// as float64 seconds: it takes "15" and "15s" alike.
type secondsFlag struct{ v float64 }

// String is the value as a Go duration ("30s", "2m0s"), as every other
// duration flag prints its default; Set takes it back.
func (f *secondsFlag) String() string {
	if d := f.v * float64(time.Second); d < math.MaxInt64 {
		return time.Duration(d).String()
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64) + "s"
}
func (f *secondsFlag) Type() string { return "duration" }
func (f *secondsFlag) Set(s string) error {
	v, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	f.v = v
	return nil
}
