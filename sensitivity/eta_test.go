package sensitivity

import (
	"testing"
	"time"
)

// The smoothed ETA: no guess before the first raw one; a right guess
// counts down one second per second; a jump in the raw guess moves it by
// less than the jump, in the jump's direction; a raw guess alternating
// ±30 % around the truth (the issue 34 symptom) moves it far less than
// the raw guess does; a raw 0 keeps the last prediction.
func TestETASmoother(t *testing.T) {
	var s etaSmoother
	if got := s.update(time.Second, 0); got != 0 {
		t.Fatalf("no guess yet: %v", got)
	}
	if got := s.update(10*time.Second, 100*time.Second); got != 100*time.Second {
		t.Fatalf("first guess %v, want 100s", got)
	}
	// Right guesses: finish at 110 s.
	for e := 11; e <= 20; e++ {
		el := time.Duration(e) * time.Second
		if got, want := s.update(el, 110*time.Second-el), 110*time.Second-el; got != want {
			t.Fatalf("at %v: %v, want %v", el, got, want)
		}
	}
	// A jump to finish at 200 s.
	got := s.update(21*time.Second, 179*time.Second)
	if got <= 89*time.Second || got >= 179*time.Second {
		t.Fatalf("after a jump up: %v, want strictly between 89s and 179s", got)
	}
	// A raw 0 keeps the prediction.
	if again := s.update(22*time.Second, 0); again != got-time.Second {
		t.Fatalf("raw 0: %v, want %v", again, got-time.Second)
	}

	// Noisy raw guesses around a true finish at 1 000 s, one a second.
	var n etaSmoother
	var rawMin, rawMax, etaMin, etaMax float64 = 1e18, -1e18, 1e18, -1e18
	for e := 60; e <= 600; e++ {
		el := time.Duration(e) * time.Second
		truth := 1000*time.Second - el
		raw := truth * 13 / 10
		if e%2 == 0 {
			raw = truth * 7 / 10
		}
		eta := n.update(el, raw)
		if e < 120 {
			continue // the first minute settles
		}
		dr, de := (raw - truth).Seconds(), (eta - truth).Seconds()
		rawMin, rawMax = min(rawMin, dr), max(rawMax, dr)
		etaMin, etaMax = min(etaMin, de), max(etaMax, de)
	}
	if spread, rawSpread := etaMax-etaMin, rawMax-rawMin; spread > rawSpread/5 {
		t.Fatalf("smoothed error spread %.0f s, raw %.0f s: want at most a fifth", spread, rawSpread)
	}
	if etaMax > 0.15*400 || etaMin < -0.15*940 {
		t.Fatalf("smoothed error in [%.0f, %.0f] s: biased", etaMin, etaMax)
	}
}
