package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Spec is a parsed schedule.
type Spec struct {
	text  string
	sched cron.Schedule
	grain time.Duration // slot length: the @every period, or a minute
}

// Parse reads a schedule: a five-field cron specification ("0 * * * *"),
// a descriptor (@hourly, @daily, …) or "@every D" with D a whole number of
// seconds of at least one second. Times are UTC.
func Parse(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	if d, ok := strings.CutPrefix(text, "@every "); ok {
		period, err := time.ParseDuration(strings.TrimSpace(d))
		switch {
		case err != nil:
			return Spec{}, fmt.Errorf("schedule %q: %w", text, err)
		case period < time.Second || period%time.Second != 0:
			return Spec{}, fmt.Errorf("schedule %q: the period must be a whole number of seconds, at least 1s", text)
		}
		return Spec{text: text, sched: aligned{period}, grain: period}, nil
	}
	if text == "" {
		return Spec{}, errors.New("schedule is empty: give a cron specification (\"0 * * * *\") or \"@every 1h\"")
	}
	s, err := cron.ParseStandard(text)
	if err != nil {
		return Spec{}, fmt.Errorf("schedule %q: %w", text, err)
	}
	return Spec{text: text, sched: s, grain: time.Minute}, nil
}

func (s Spec) String() string { return s.text }

// Next returns the first firing after t.
func (s Spec) Next(t time.Time) time.Time { return s.sched.Next(t.UTC()) }

// Slot returns the start of the slot that contains t.
func (s Spec) Slot(t time.Time) time.Time { return t.UTC().Truncate(s.grain) }

// Epoch names the slot that contains t (EpochName with the spec's grain).
func (s Spec) Epoch(t time.Time) string { return EpochName(t, s.grain) }

// EpochName names the slot of length grain that contains t by its start in
// UTC, with the precision the slot needs: 2026-11-22T10:00Z for an hourly
// slot, 2026-11-22 for a daily one, seconds for shorter periods. Slots are
// multiples of grain since the zero time, so every run within a slot, and
// every retry of it, names the same epoch.
func EpochName(t time.Time, grain time.Duration) string {
	start := t.UTC().Truncate(grain)
	switch {
	case grain%(24*time.Hour) == 0:
		return start.Format("2006-01-02")
	case grain%time.Minute == 0:
		return start.Format("2006-01-02T15:04Z")
	}
	return start.Format("2006-01-02T15:04:05Z")
}

// aligned fires at every multiple of period (cron's own "@every" counts
// from when the scheduler started, so two processes would disagree on the
// slots).
type aligned struct{ period time.Duration }

func (a aligned) Next(t time.Time) time.Time { return t.Truncate(a.period).Add(a.period) }
