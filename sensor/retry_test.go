package sensor

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

// coarseOrder is testOrder on the grid k with variance s2: a coarse grid
// and a small σ make every retry-shaped order likely to hit the recorded
// grid on a sensor that redraws.
func coarseOrder(k int, s2 uint64) Order {
	o := testOrder()
	o.Sampler.GridExponent, o.Sampler.GridVariance = k, s2
	o.Sampler.Sigma = math.Ldexp(math.Sqrt(float64(s2)), -k)
	return o
}

// retryShaped returns the i-th order that reuses o's release id: another
// epoch, another σ̃², another k, or o itself (byte-identical).
func retryShaped(r *rig, o Order, i int) []byte {
	switch i % 4 {
	case 0:
		o.Epoch = fmt.Sprintf("%s-retry-%d", o.Epoch, i)
	case 1:
		o.Sampler.GridVariance += uint64(1 + i%7)
	case 2:
		o.Sampler.GridExponent++
		o.Sampler.GridVariance *= 4
	}
	return r.sign(o)
}

// After one report, 200 orders reusing its release id — another epoch,
// σ̃² or k, and the byte-identical order after the reading changed — give
// no new report: the byte-identical order gets the recorded report byte
// for byte, every other one is refused, and the odometer has one entry.
func TestRetryShapedOrdersReportNothingNew(t *testing.T) {
	r := newRig(t)
	o := coarseOrder(0, 4) // σ = 2
	s := r.sensor("n1", openPolicy())
	first, err := s.Report(r.sign(o), 7.3)
	if err != nil {
		t.Fatal(err)
	}
	fresh, identical := 0, 0
	for i := range 200 {
		rep, err := s.Report(retryShaped(r, o, i), 7.3+float64(i%4)*0.25)
		switch {
		case i%4 == 3 && (err != nil || rep != first):
			t.Errorf("order %d, byte-identical: %+v, %v; want the recorded report", i, rep, err)
		case i%4 == 3:
			identical++
		case err == nil:
			fresh++
		case !errors.Is(err, ErrAlreadyReported):
			t.Errorf("order %d: %v, want already-reported", i, err)
		}
	}
	if od, err := loadOdometer(s.Odometer, "n1"); fresh != 0 || err != nil || len(od.Entries) != 1 {
		t.Errorf("%d new reports of 150 retry-shaped orders (want 0); odometer %v, %d entries", fresh, err, len(od.Entries))
	}
	if identical != 50 {
		t.Errorf("%d of 50 byte-identical orders got the recorded report", identical)
	}
}

// A retry never reads the reading: only the first report calls read.
func TestRetryNeverReadsTheReading(t *testing.T) {
	r := newRig(t)
	o := coarseOrder(0, 4)
	s := r.sensor("n1", openPolicy())
	reads := 0
	read := func() (float64, error) { reads++; return 7.3, nil }
	if _, err := s.ReportReading(r.sign(o), read); err != nil || reads != 1 {
		t.Fatalf("first report: %v, %d reads", err, reads)
	}
	for i := range 200 {
		s.ReportReading(retryShaped(r, o, i), read)
	}
	if reads != 1 {
		t.Errorf("200 retry-shaped orders read the reading %d times, want 0", reads-1)
	}
}

// reportedOnce is n1's sensor after its report of testOrder, and that
// order's envelope.
func reportedOnce(t *testing.T, r *rig) (*Sensor, []byte) {
	t.Helper()
	env := r.sign(testOrder())
	s := r.sensor("n1", openPolicy())
	if _, err := s.Report(env, 20); err != nil {
		t.Fatal(err)
	}
	return s, env
}

// The restore barrier applies to retries: after sensor init --restored,
// even the byte-identical order is refused.
func TestRetryAfterRestoreRefused(t *testing.T) {
	r := newRig(t)
	s, env := reportedOnce(t, r)
	if err := InitOdometer(s.Odometer, "n1", r.now, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report(env, 20); !errors.Is(err, ErrRestored) {
		t.Errorf("the byte-identical order after a restore: %v, want ErrRestored", err)
	}
}

// An odometer written before retries were recorded (no orderSha256, no
// mac) refuses every order of a recorded epoch, the identical one too.
func TestRetryOfAnOldEntryRefused(t *testing.T) {
	s, env := reportedOnce(t, newRig(t))
	lo, err := openOdometer(s.Odometer, "n1")
	if err != nil {
		t.Fatal(err)
	}
	lo.od.Entries[0].OrderSHA256, lo.od.Entries[0].MAC, lo.od.Entries[0].ReportVersion = "", "", 0
	err = lo.od.save(lo.real)
	lo.unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report(env, 20); !errors.Is(err, ErrAlreadyReported) {
		t.Errorf("an old entry's order again: %v, want ErrAlreadyReported", err)
	}
}

// An entry written by a version 1 sensor (orderSha256 and mac, no
// reportVersion) is retried as the version 1 report it recorded — byte
// for byte what was sent, never resealed as version 2 — which Verify
// refuses as old.
func TestRetryOfAVersion1EntryIsTheVersion1Report(t *testing.T) {
	s, env := reportedOnce(t, newRig(t))
	lo, err := openOdometer(s.Odometer, "n1")
	if err != nil {
		t.Fatal(err)
	}
	lo.od.Entries[0].ReportVersion = 0
	err = lo.od.save(lo.real)
	lo.unlock()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Report(env, 20)
	if err != nil || rep.Version != 1 || rep.OrderSHA256 != "" {
		t.Fatalf("retry of a version 1 entry: %+v, %v; want the version 1 report", rep, err)
	}
	if err := rep.Verify(ReportMACKey([32]byte(s.Key)), 0); !errors.Is(err, errOldReport) {
		t.Errorf("Verify of the version 1 report: %v, want errOldReport", err)
	}
}

// splitOrder is one release of 4 nodes cut down to this node alone: n = 1
// listed, the graph stated as 1 node, Δ_eff and ρ stated at n = 1.
func splitOrder() Order {
	o := coarseOrder(0, 16) // γ = 1, σ = 4: the rounding term γ√n is large
	o.Nodes, o.Graph.NodeCount = []string{"n1"}, 1
	o.EffectiveSensitivity, o.Rho = 0.26, 1e-9
	return o
}

// wholeReleaseRho is the closed form of what the release of n nodes costs
// at Δ2 = √2·α, γ = 1, σ = 4: (√2 + √n)²/(2·16).
func wholeReleaseRho(n float64) float64 {
	return (math.Sqrt2 + math.Sqrt(n)) * (math.Sqrt2 + math.Sqrt(n)) / 32
}

func chargedRho(t *testing.T, s *Sensor, env []byte) float64 {
	t.Helper()
	if _, err := s.Report(env, 1); err != nil {
		t.Fatal(err)
	}
	od, err := loadOdometer(s.Odometer, s.Node)
	if err != nil || len(od.Entries) != 1 {
		t.Fatalf("odometer %v", err)
	}
	return od.Entries[0].Rho
}

// A split order (n = 1) is charged as the whole release: at the node
// count the sensor was provisioned with (releaseNodes), whatever the
// order lists or states as its graph.
func TestSplitOrderChargedAsWholeRelease(t *testing.T) {
	r := newRig(t)
	p := openPolicy()
	p.ReleaseNodes = 4
	got := chargedRho(t, r.sensor("n1", p), r.sign(splitOrder()))
	if want := wholeReleaseRho(4); math.Abs(got-want) > 1e-12 {
		t.Errorf("a split order was charged ρ %v, the release of 4 costs %v (n = 1 would be %v)", got, want, wholeReleaseRho(1))
	}
}

// Without releaseNodes, the graph's node count the order states is the
// least n: an order that lists 1 node of a graph of 4 is charged at 4.
func TestSplitOrderChargedAtGraphNodeCount(t *testing.T) {
	r := newRig(t)
	o := splitOrder()
	o.Graph.NodeCount = 4
	got := chargedRho(t, r.sensor("n1", openPolicy()), r.sign(o))
	if want := wholeReleaseRho(4); math.Abs(got-want) > 1e-12 {
		t.Errorf("1 node listed of a graph of 4: charged ρ %v, the release of 4 costs %v", got, want)
	}
}

// Time only moves forward: a clock set back before the odometer's last
// report refuses (exit 7's clock-behind), so setting the clock back four
// days buys no fresh daily caps; set right, the sensor reports again.
func TestClockSetBackRefused(t *testing.T) {
	r := newRig(t)
	p := Policy{Alpha: 1, SigmaFloor: 1, MaxEpsilonPerDay: 4, MaxReportsPerDay: 1}
	s := r.sensor("n1", p)
	if _, err := s.Report(r.sign(testOrder()), 1); err != nil {
		t.Fatal(err)
	}
	real := r.now
	for d := 1; d <= 4; d++ {
		o := orderFor(d)
		o.NotBefore, o.NotAfter = real.Add(-time.Duration(d)*24*time.Hour), real.Add(-time.Duration(d)*24*time.Hour+time.Hour)
		r.now = o.NotBefore.Add(time.Minute)
		if _, err := s.Report(r.sign(o), 1); RefusalCode(err) != "clock-behind" {
			t.Errorf("clock set back %d days: %v, want clock-behind", d, err)
		}
	}
	o := orderFor(9)
	o.NotBefore, o.NotAfter = real.Add(24*time.Hour), real.Add(25*time.Hour)
	r.now = o.NotBefore.Add(time.Minute)
	if _, err := s.Report(r.sign(o), 1); err != nil {
		t.Errorf("the clock set right, the next day: %v", err)
	}
}
