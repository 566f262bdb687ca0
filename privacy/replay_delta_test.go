package privacy

import "testing"

// TestReplayNeverAdmitsDeltaWithoutShare: reading a ledger back, a charge
// of δ₀ > 0 in a scope without an answers' δ share (or past it) is
// refused whatever the pre-share split rule would allow — no ledger the
// filter wrote holds one, so its history is corrupt. On the merged code
// the split clause of fitsBefore admitted it (its δ test bound only the
// zCDP clause).
func TestReplayNeverAdmitsDeltaWithoutShare(t *testing.T) {
	b := Budget{Epsilon: 8, Delta: 1e-6}
	rhoMax, err := b.Rho()
	if err != nil {
		t.Fatal(err)
	}
	c := Charge{Scope: "s", ReleaseID: "r", Rho: PureRho(1), Epsilon: 1, Delta: 1e-9}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := b.Replay(rhoMax, "s", 0, &Spend{}, c); err == nil {
		t.Error("Replay admitted an answer of δ 1e-9 in a scope without an answers' δ share")
	}
	c.Delta = 0
	if err := b.Replay(rhoMax, "s", 0, &Spend{}, c); err != nil {
		t.Errorf("the same answer without δ: %v", err)
	}
}
