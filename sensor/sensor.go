package sensor

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/graphcloak/graphcloak/keyednoise"
)

// Key is a sensor key K_s (SensorKey). It never prints its bytes.
type Key [32]byte

// Format implements fmt.Formatter so that a Key cannot leak into logs.
func (Key) Format(f fmt.State, _ rune) { io.WriteString(f, "sensor.Key(redacted)") }

// Sensor is one provisioned sensor: the coordinator key it trusts, its
// node key, its sensor key, its policy and its odometer file.
type Sensor struct {
	// Coordinator is the Ed25519 public key the sensor was provisioned
	// with; orders signed by any other key are refused.
	Coordinator ed25519.PublicKey
	Node        string
	Key         Key
	Policy      Policy
	// Odometer is the path of the odometer file (created 0600 on first
	// use; its directory must exist). Its lock is the hidden ".NAME.lock"
	// beside it (lockOdometer).
	Odometer string
	// Now is the sensor's clock; nil means time.Now.
	Now func() time.Time
}

// Report checks the signed order env and, if the sensor's policy admits
// it, returns this sensor's report of value for the order's epoch:
//
//	r = round(value·2^k) + Z,  Z = keyednoise.SensorNoise(K_s, order, node)
//
// Checks, in order: the signature under s.Coordinator and the order's
// form (VerifyOrder); the validity window against s.Now (CheckTime); the
// node in the order's list; the σ floor; the value (finite, |value·2^k| ≤
// 2^61); the odometer (no earlier report for the epoch or release id);
// the daily cap (Policy). Only then is the noise drawn; the odometer entry
// is written and fsynced before the report is returned. Presented again
// with the same order and the same value, Report returns the identical
// report without charging again (a retry after a lost send reveals
// nothing new); with another value it refuses with ErrAlreadyReported.
// value is never returned, logged or stored.
func (s *Sensor) Report(env []byte, value float64) (Report, error) {
	if s.Node == "" || s.Odometer == "" {
		return Report{}, errors.New("sensor: a Sensor needs its node key and odometer path")
	}
	if err := s.Policy.Check(); err != nil {
		return Report{}, err
	}
	o, err := VerifyOrder(s.Coordinator, env)
	if err != nil {
		return Report{}, err
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	if err := o.CheckTime(now); err != nil {
		return Report{}, err
	}
	if !o.HasNode(s.Node) {
		return Report{}, fmt.Errorf("%w (node %q, order %s)", ErrNodeNotInOrder, s.Node, o.ReleaseID)
	}
	if err := s.Policy.checkOrder(o); err != nil {
		return Report{}, err
	}
	q, err := gridIndex(value, o.Sampler.GridExponent)
	if err != nil {
		return Report{}, err
	}
	unlock, err := lockOdometer(s.Odometer)
	if err != nil {
		return Report{}, &OdometerError{Path: s.Odometer, Reason: "cannot be locked", Err: err}
	}
	defer unlock()
	od, err := loadOdometer(s.Odometer, s.Node)
	if err != nil {
		return Report{}, err
	}
	prev := od.find(o)
	day := now.UTC().Format("2006-01-02")
	cost := Cost(o)
	if prev == nil {
		if err := s.Policy.checkDay(day, od.spent(day), cost); err != nil {
			return Report{}, err
		}
	}
	rep, err := drawReport(o, s.Key, s.Node, q)
	if err != nil {
		return Report{}, err
	}
	if prev != nil {
		if prev.ReleaseID != o.ReleaseID || prev.Grid != rep.Grid {
			return Report{}, fmt.Errorf("%w: scope %q epoch %q (release %s) was reported at %s; a sensor reports once per epoch",
				ErrAlreadyReported, prev.Scope, prev.Epoch, prev.ReleaseID, prev.At.Format(time.RFC3339))
		}
	} else {
		od.Entries = append(od.Entries, odometerEntry{ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch,
			Day: day, Rho: cost, Grid: rep.Grid, At: now.UTC()})
		if err := od.save(s.Odometer); err != nil {
			return Report{}, err
		}
	}
	return rep, nil
}

// drawReport draws node's noise for the verified order o from its sensor
// key and returns the sealed report of the grid index q = round(y·2^k).
func drawReport(o Order, key Key, node string, q int64) (Report, error) {
	ks := [32]byte(key)
	defer clear(ks[:])
	z, err := keyednoise.SensorNoise(&ks, o.NoiseParams(), node)
	if err != nil {
		return Report{}, err
	}
	r := q + z // |q| ≤ 2^61, |z| ≤ 2^62: no overflow
	rep := Report{Kind: ReportKind, Version: ReportVersion, Node: node, Scope: o.Scope, Epoch: o.Epoch,
		ReleaseID: o.ReleaseID, Grid: r, Value: math.Ldexp(float64(r), -o.Sampler.GridExponent)}
	SealReport(ReportMACKey(ks), &rep)
	return rep, nil
}

// gridIndex returns round(value·2^k) exactly as privacy.Release computes
// it (math.Round of math.Ldexp), refusing NaN, ±Inf and |value·2^k| > 2^61.
func gridIndex(value float64, k int) (int64, error) {
	x := math.Ldexp(value, k)
	if math.IsNaN(x) || math.Abs(x) > 1<<61 {
		return 0, ErrValue
	}
	return int64(math.Round(x)), nil
}
