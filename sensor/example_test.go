package sensor_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/graphcloak/graphcloak/sensor"
)

// A coordinator signs an order, a sensor reports, the collector verifies
// the report with the node's report-MAC key only.
func Example() {
	seed := sha256.Sum256([]byte("example coordinator, not a real key"))
	coord := ed25519.NewKeyFromSeed(seed[:])
	var master [32]byte // the key holder's master key (all zero: an example only)

	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	order := sensor.Order{Version: 1, Kind: sensor.OrderKind, Epsilon: 1, Delta: 1e-5, Sensitivity: 0.25,
		EffectiveSensitivity: 0.2501, Rho: 0.0182, Sampler: sensor.Sampler{Version: 3, GridExponent: 16, GridVariance: 1 << 40, Sigma: 16},
		ReleaseID: "rel-00112233445566778899aabbccddeeff", Scope: "building-7", Epoch: "2026-11-27T06",
		NotBefore: t0, NotAfter: t0.Add(time.Hour), Nodes: []string{"room-12", "room-13"}}
	env, err := sensor.SignOrder(coord, order)
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, _ := os.MkdirTemp("", "sensor-example")
	defer os.RemoveAll(dir)
	// Provisioning creates the sensor's odometer; a sensor without one
	// does not report.
	odometer := filepath.Join(dir, "room-12.odometer")
	if err := sensor.InitOdometer(odometer, "room-12", t0.Add(-time.Hour), false); err != nil {
		fmt.Println(err)
		return
	}
	s := &sensor.Sensor{Coordinator: coord.Public().(ed25519.PublicKey), Node: "room-12",
		Key: sensor.SensorKey(master, "room-12"), Policy: sensor.Policy{Alpha: 0.25, SigmaFloor: 1, MaxEpsilonPerDay: 4},
		Odometer: odometer, Now: func() time.Time { return t0.Add(time.Minute) }}
	rep, err := s.Report(env, 21.375)
	if err != nil {
		fmt.Println(err)
		return
	}
	macKey := sensor.ReportMACKey(sensor.SensorKey(master, "room-12")) // what the collector holds
	fmt.Println(rep.Node, rep.Epoch, rep.Verify(macKey, order.Sampler.GridExponent) == nil)
	// The same order again (a lost send): the recorded report, whatever
	// the reading now is; nothing drawn, nothing charged.
	again, err := s.Report(env, 22)
	fmt.Println(err == nil && again == rep)
	// Output:
	// room-12 2026-11-27T06 true
	// true
}
