package answer

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestRunTakesTheAuditOfItsMechanism: Run takes the audit it is handed
// (Request.Audited) when it is of the mechanism Run calibrates, and audits
// again otherwise — so locate --private-answer after plan does not repeat
// the per-edge audit the plan (or the store) already holds, which on
// e-mail Enron was 40 CPU-minutes; the audit taken is the one the answer
// reports. A marked copy tells a taken audit from a recomputed one.
func TestRunTakesTheAuditOfItsMechanism(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	model, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := privacy.CalibrateAnswer(ctx, model.Geometry, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := model.Audit(ctx, cal)
	if err != nil || !audit.Passed {
		t.Fatalf("audit: %v, %+v", err, audit)
	}
	marked := *audit
	marked.Accuracy = 0.123456789 // no audit computes this
	heat := heattest.PadeHeat(g, 1)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = 2 * heat.At(i, 5)
	}
	run := func(calibrated privacy.AnswerCalibration) *Result {
		t.Helper()
		res, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Alpha: 1, Model: model, Partition: part,
			Audited: &marked, Calibrated: calibrated, Ledger: ledger(t, 100, 1e-6), Scope: "s", Epoch: "e", Noise: privacy.CryptoNoise()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(cal); res.Audit != &marked {
		t.Errorf("the audit of Run's own mechanism was computed again (accuracy %v), not taken", res.Audit.Accuracy)
	}
	other, err := privacy.CalibrateAnswer(ctx, model.Geometry, 2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := run(other)
	if res.Audit == &marked || res.Audit.Accuracy != audit.Accuracy || res.Audit.WorstLoss != audit.WorstLoss {
		t.Errorf("an audit of another mechanism (ε = 2) was taken for ε = 1's: %+v", res.Audit)
	}
}
