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
	// Odometer is the path of the odometer file, created when the sensor
	// was provisioned (InitOdometer); a missing file is refused. Symbolic
	// links are followed; the file itself is locked (flock) and replaced.
	Odometer string
	// Now is the sensor's clock; nil means time.Now.
	Now func() time.Time
}

// Report checks the signed order env and, if the sensor's policy admits
// it, returns this sensor's report of value for the order's epoch:
//
//	r = round(value·2^k) + Z,  Z = keyednoise.SensorNoise(K_s, order, node)
//
// Checks, in order (docs/local-sampler.md §9): the policy (Policy.Check:
// none, none reported); the signature under s.Coordinator and the order's
// form (VerifyOrder); the validity window against s.Now (CheckTime); the
// node in the order's list; the graph, the window's length and the σ
// floor; the odometer (present, its last entry not after s.Now, the
// order's window not begun before a restore barrier); the retry rule; the
// value (finite, |value·2^k| ≤ 2^61); the daily cap at the policy's own
// cost (Policy.Cost). Only then is the noise drawn; the odometer entry
// (with the report's MAC and the order's digest) is written and fsynced
// before the report is returned.
//
// Retry: given again the byte-identical signed order, Report returns the
// recorded report, byte for byte, without drawing noise or looking at
// value; any other order that reuses a recorded release id, or scope and
// epoch, is refused (ErrAlreadyReported). value is never returned,
// logged or stored.
func (s *Sensor) Report(env []byte, value float64) (Report, error) {
	return s.ReportReading(env, func() (float64, error) { return value, nil })
}

// ReportReading is Report with the reading read by read, which is called
// only when a new report is drawn: never for a retry or a refusal before
// the value check.
func (s *Sensor) ReportReading(env []byte, read func() (float64, error)) (Report, error) {
	if s.Node == "" || s.Odometer == "" {
		return Report{}, errors.New("sensor: a Sensor needs its node key and odometer path")
	}
	if err := s.Policy.Check(); err != nil {
		return Report{}, err
	}
	o, digest, err := verifyOrderDigest(s.Coordinator, env)
	if err != nil {
		return Report{}, err
	}
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	if err := s.checkOrder(o, now); err != nil {
		return Report{}, err
	}
	lo, err := openOdometer(s.Odometer, s.Node)
	if err != nil {
		return Report{}, err
	}
	defer lo.unlock()
	od := lo.od
	if err := od.admit(o, now); err != nil {
		if rep, ok := od.recorded(o, digest); ok && errors.Is(err, ErrAlreadyReported) {
			return rep, nil
		}
		return Report{}, err
	}
	return s.draw(lo, o, digest, now, read)
}

// checkOrder applies the window, the node list and the policy's checks.
func (s *Sensor) checkOrder(o Order, now time.Time) error {
	if err := o.CheckTime(now); err != nil {
		return err
	}
	if !o.HasNode(s.Node) {
		return fmt.Errorf("%w (node %q, order %s)", ErrNodeNotInOrder, s.Node, o.ReleaseID)
	}
	return s.Policy.checkOrder(o)
}

// draw reads the value, applies the daily cap, draws the report and
// records it durably before returning it.
func (s *Sensor) draw(lo *lockedOdometer, o Order, digest string, now time.Time, read func() (float64, error)) (Report, error) {
	value, err := read()
	if err != nil {
		return Report{}, err
	}
	q, err := gridIndex(value, o.Sampler.GridExponent)
	if err != nil {
		return Report{}, err
	}
	od := lo.od
	day := Day(now)
	cost := s.Policy.Cost(o)
	spent, count := od.spent(day)
	if err := s.Policy.checkDay(day, spent, count, cost); err != nil {
		return Report{}, err
	}
	rep, err := drawReport(o, digest, s.Key, s.Node, q)
	if err != nil {
		return Report{}, err
	}
	od.Entries = append(od.Entries, odometerEntry{ReleaseID: o.ReleaseID, Scope: o.Scope, Epoch: o.Epoch,
		Day: day, Rho: cost, Grid: rep.Grid, At: now.UTC(), OrderSHA256: digest, MAC: rep.MAC, ReportVersion: rep.Version})
	if err := od.save(lo.real); err != nil {
		err.(*OdometerError).Path = s.Odometer
		return Report{}, err
	}
	return rep, nil
}

// drawReport draws node's noise for the verified order o, whose signed
// bytes have SHA-256 digest (hex), from its sensor key and returns the
// sealed report of the grid index q = round(y·2^k).
func drawReport(o Order, digest string, key Key, node string, q int64) (Report, error) {
	ks := [32]byte(key)
	defer clear(ks[:])
	z, err := keyednoise.SensorNoise(&ks, o.NoiseParams(), node)
	if err != nil {
		return Report{}, err
	}
	r := q + z // |q| ≤ 2^61, |z| ≤ 2^62: no overflow
	rep := Report{Kind: ReportKind, Version: ReportVersion, Node: node, Scope: o.Scope, Epoch: o.Epoch,
		ReleaseID: o.ReleaseID, OrderSHA256: digest, Grid: r, Value: math.Ldexp(float64(r), -o.Sampler.GridExponent)}
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
