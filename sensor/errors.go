package sensor

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors; the typed errors below wrap them, so callers test with
// errors.Is. None of them carries a key or a raw value.
var (
	// ErrOrder is wrapped by every refusal of an order: malformed, not
	// signed by the provisioned coordinator key, or not well formed.
	ErrOrder = errors.New("sensor: order refused")
	// ErrBadSignature: the order's signature does not verify under the
	// coordinator public key the sensor was provisioned with (a forged
	// order, or one of another coordinator).
	ErrBadSignature = fmt.Errorf("%w: its signature does not verify under the provisioned coordinator key", ErrOrder)
	// ErrExpired is wrapped by *ExpiredError.
	ErrExpired = errors.New("sensor: order outside its validity window")
	// ErrNodeNotInOrder: the sensor's node key is not in the order's list.
	ErrNodeNotInOrder = errors.New("sensor: this node is not in the order's node list")
	// ErrPolicy is wrapped by every refusal of the sensor's own policy
	// (*PolicyError).
	ErrPolicy = errors.New("sensor: the sensor's policy refuses the order")
	// ErrAlreadyReported: the odometer records a report for this epoch
	// (or release id) and the order is not the byte-identical one it
	// answered: a sensor reports once per epoch.
	ErrAlreadyReported = errors.New("sensor: already reported for this epoch")
	// ErrRestored: the order's window began before the odometer's restore
	// barrier (InitOdometer): it may have been answered before the
	// restore.
	ErrRestored = errors.New("sensor: the order's window began before the odometer was restored")
	// ErrClockBehind: the sensor's clock is before its odometer's last
	// report: time only moves forward (a clock set back would open a new
	// day's cap on a day already spent).
	ErrClockBehind = errors.New("sensor: the clock is before the odometer's last report (set the clock right; the sensor reports again once its clock passes that time)")
	// ErrOdometer is wrapped by *OdometerError.
	ErrOdometer = errors.New("sensor: odometer")
	// ErrBadReport is wrapped by every report that does not verify.
	ErrBadReport = errors.New("sensor: report refused")
	// ErrBadMAC: the report's MAC does not verify under the node's report
	// MAC key.
	ErrBadMAC = fmt.Errorf("%w: MAC does not verify", ErrBadReport)
	// errOldReport: a version 1 report, whose MAC does not cover the order
	// it answers — a collector could not tell it from a report of another
	// order (a split one), so none is accepted.
	errOldReport = fmt.Errorf("%w: a version 1 report (its MAC does not cover the order it answers, so it could be a report "+
		"of another order); collectors accept version 2 only: upgrade the sensor and send it the order again", ErrBadReport)
	// ErrValue: the raw value is not finite or too large for the grid
	// (the value itself is never printed).
	ErrValue = errors.New("sensor: value is not finite or too large for the order's grid")
)

// OrderError reports an order that is malformed or not well formed.
type OrderError struct{ Reason string }

func (e *OrderError) Error() string { return "sensor: order refused: " + e.Reason }
func (e *OrderError) Unwrap() error { return ErrOrder }

// ExpiredError reports an order used outside [NotBefore, NotAfter).
type ExpiredError struct{ Now, NotBefore, NotAfter time.Time }

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("sensor: order valid from %s until %s, the sensor's clock says %s",
		e.NotBefore.UTC().Format(time.RFC3339), e.NotAfter.UTC().Format(time.RFC3339), e.Now.UTC().Format(time.RFC3339))
}
func (e *ExpiredError) Unwrap() error { return ErrExpired }

// PolicyError reports an order the sensor's policy refuses.
type PolicyError struct {
	// Rule is "graph", "validity", "sigma-floor" or "daily-cap".
	Rule   string
	Reason string
}

func (e *PolicyError) Error() string {
	return "sensor: policy refuses the order (" + e.Rule + "): " + e.Reason
}
func (e *PolicyError) Unwrap() error { return ErrPolicy }

// OdometerError reports an odometer file that cannot be read, is
// corrupted, or cannot be written. When it cannot be written, no report
// was returned.
type OdometerError struct {
	Path   string
	Reason string
	// Corrupt is set when the file exists but is not a valid odometer of
	// this node (else it could not be read, locked or written).
	Corrupt bool
	// Missing is set when no file is there: a sensor without its odometer
	// does not report (InitOdometer).
	Missing bool
	Err     error
}

func (e *OdometerError) Error() string {
	s := fmt.Sprintf("sensor: odometer %s: %s", e.Path, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}
func (e *OdometerError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrOdometer}
	}
	return []error{ErrOdometer, e.Err}
}

// RefusalCode is the stable word for why Report refused (the refusal
// vectors of docs/local-sampler.md §10 use them): "no-policy",
// "bad-signature", "bad-order", "early", "expired", "not-in-order",
// "graph", "validity", "sigma-floor", "daily-cap", "bad-value",
// "already-reported", "restored", "clock-behind", "no-odometer", "bad-odometer",
// "odometer-failed"; "" for nil.
func RefusalCode(err error) string {
	var pe *PolicyError
	var ee *ExpiredError
	var oe *OdometerError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNoPolicy):
		return "no-policy"
	case errors.Is(err, ErrBadSignature):
		return "bad-signature"
	case errors.Is(err, ErrOrder):
		return "bad-order"
	case errors.As(err, &ee):
		if ee.Now.Before(ee.NotBefore) {
			return "early"
		}
		return "expired"
	case errors.Is(err, ErrNodeNotInOrder):
		return "not-in-order"
	case errors.As(err, &pe):
		return pe.Rule
	case errors.Is(err, ErrValue):
		return "bad-value"
	case errors.Is(err, ErrAlreadyReported):
		return "already-reported"
	case errors.Is(err, ErrRestored):
		return "restored"
	case errors.Is(err, ErrClockBehind):
		return "clock-behind"
	case errors.As(err, &oe) && oe.Missing:
		return "no-odometer"
	case errors.As(err, &oe) && oe.Corrupt:
		return "bad-odometer"
	case errors.As(err, &oe):
		return "odometer-failed"
	}
	return "error"
}
