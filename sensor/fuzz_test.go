package sensor

import (
	"bytes"
	"crypto/ed25519"
	"testing"
)

// FuzzVerifyOrder: any bytes are refused with an error or, only when they
// are exactly a signed order's envelope, accepted; never a panic.
//
//	go test ./sensor -run '^$' -fuzz FuzzVerifyOrder -fuzztime 30s
func FuzzVerifyOrder(f *testing.F) {
	priv := testCoordinator("a")
	pub := priv.Public().(ed25519.PublicKey)
	env, _ := SignOrder(priv, testOrder())
	f.Add(env)
	f.Add([]byte(`{"order":{},"signature":""}`))
	f.Add([]byte(`{"order":null,"signature":"AAAA"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := VerifyOrder(pub, data)
		if err != nil {
			return
		}
		if err := o.Check(); err != nil {
			t.Fatalf("accepted an order Check refuses: %v", err)
		}
		// Only the signed order member is accepted: its bytes are env's.
		if !bytes.Contains(data, []byte(`"releaseId":"`+o.ReleaseID+`"`)) {
			t.Fatalf("accepted %q", data)
		}
	})
}

// FuzzOdometer: a corrupted odometer file is refused, never a panic.
func FuzzOdometer(f *testing.F) {
	f.Add([]byte(`{"kind":"graphcloak.sensor-odometer","version":1,"node":"n1","entries":[]}`))
	f.Add([]byte(`{"kind":"graphcloak.sensor-odometer","version":1,"node":"n1","entries":[{"releaseId":"r","scope":"s","epoch":"e","day":"2026-11-27","rho":1,"grid":3,"at":"2026-11-27T00:00:00Z"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := t.TempDir() + "/od"
		if err := writeSynced(path, data); err != nil {
			t.Skip(err)
		}
		od, err := loadOdometer(path, "n1")
		if err == nil && (od.Node != "n1" || od.Kind != odometerKind) {
			t.Fatalf("accepted %+v", od)
		}
	})
}
