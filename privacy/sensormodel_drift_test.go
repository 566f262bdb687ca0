package privacy

import (
	"strings"
	"testing"
)

// TestSensorModelDriftAny: DriftAny is a valid drift allowance and reads
// "any"; below it or above MaxDriftHops is refused.
func TestSensorModelDriftAny(t *testing.T) {
	m := SensorModel{Noise: 0.005, DriftHops: DriftAny}
	if err := m.Validate(); err != nil || !strings.Contains(m.String(), "drift hops=any") {
		t.Fatalf("DriftAny: %v, %q", err, m.String())
	}
	for _, d := range []int{DriftAny - 1, MaxDriftHops + 1} {
		if err := (SensorModel{Noise: 0.005, DriftHops: d}).Validate(); err == nil {
			t.Errorf("drift %d: accepted", d)
		}
	}
}
