package forecast

import "testing"

// TestPairedAnswer checks the paired test against its closed form. A
// pool lucky at no signal — 88 of 200 trials right by the noise alone
// (0.44) where the named communities hold 35% of the nodes each (the
// noise's exact chance) — passes the plain bound against a guess of
// 0.353 but not the paired one: the answers are mass 0's, β̂ = 1, and
// μ̂ = 0.44 − (0.44 − 0.35) = 0.35. Answers that owe nothing to the noise
// (every trial right, β̂ = 0) are the plain mean, an answer; fewer paired
// trials than answers decide nothing.
func TestPairedAnswer(t *testing.T) {
	const T, guess = 200, 0.353
	zero := &SimulationResult{accuracies: make([]float64, T), namedShares: make([]float64, T)}
	lucky := make([]float64, T)
	for i := range T {
		zero.namedShares[i] = 0.35
		if i%25 < 11 { // 88 of 200
			zero.accuracies[i], lucky[i] = 1, 1
		}
	}
	if lo, _ := Wilson(88, T, zVerdict); !(lo > guess) {
		t.Fatalf("the oracle's premise: the plain bound %g clears the guess", lo)
	}
	if pairedAnswer(lucky, zero, guess) {
		t.Error("the pool's luck at no signal is called an answer")
	}
	right := make([]float64, T)
	for i := range right {
		right[i] = 1
	}
	if !pairedAnswer(right, zero, guess) {
		t.Error("every trial right is not an answer")
	}
	if pairedAnswer(append(right, 1), zero, guess) {
		t.Error("answers without their mass-0 pairs decide")
	}
}
