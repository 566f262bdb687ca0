package experiment

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/recovery"
)

// The paper's Figure 1 setting with BPDN: the target is a mean EMD
// of at most 0.06 over 20 trials.
func TestRunLinePaperTarget(t *testing.T) {
	res, err := RunLine(context.Background(), Line{
		N: 100, M: 50, T: 0.05, Sigma: 0.1, Sources: []float64{0.24, 0.76},
		Trials: 20, Estimator: recovery.NameBPDN, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.EMDMean > 0.06 || res.NoSourceRate != 0 {
		t.Errorf("BPDN line: mean EMD %.4f (want ≤ 0.06), no-source rate %.2f", res.EMDMean, res.NoSourceRate)
	}
	if res.EMDMax < res.EMDMean || res.Sources[0] != 0.24 || res.Sources[1] != 0.76 {
		t.Errorf("inconsistent result %+v", res)
	}
	t.Logf("BPDN line: EMD mean %.4f max %.4f", res.EMDMean, res.EMDMax)
}

// With negligible noise every estimator must put the mass on the sources:
// EMD near 0. Oracle: EMD(f0, f0) = 0.
func TestRunLineNoiseless(t *testing.T) {
	res, err := RunLine(context.Background(), Line{
		N: 50, M: 50, T: 0.01, Sigma: 1e-6, Sources: []float64{0.3}, Trials: 3, Seed: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.EMDMax > 0.02+1e-9 { // one grid step is 0.02
		t.Errorf("near-noiseless line: EMD max %.4f", res.EMDMax)
	}
}

// Private calibration on the line: σ must grow as ε shrinks (σ ∝ 1/ε
// roughly for the analytic Gaussian), and Δ2 be reported.
func TestRunLinePrivateSigma(t *testing.T) {
	var prev float64
	for _, eps := range []float64{8, 2, 0.5} {
		res, err := RunLine(context.Background(), Line{
			N: 100, M: 50, T: 0.05, Epsilon: eps, Delta: 1e-5, Sources: []float64{0.5}, Trials: 1, Seed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Private || !(res.Delta2 > 0) || !(res.Sigma > prev) {
			t.Errorf("ε=%v: private=%v Δ2=%v σ=%v (previous σ %v)", eps, res.Private, res.Delta2, res.Sigma, prev)
		}
		prev = res.Sigma
	}
}

func TestRunLineErrors(t *testing.T) {
	ctx := context.Background()
	for name, e := range map[string]Line{
		"outside":   {N: 10, M: 10, T: 0.1, Sigma: 0.1, Sources: []float64{1.5}, Trials: 1},
		"twice":     {N: 10, M: 10, T: 0.1, Sigma: 0.1, Sources: []float64{0.5, 0.51}, Trials: 1},
		"no source": {N: 10, M: 10, T: 0.1, Sigma: 0.1, Trials: 1},
	} {
		_, err := RunLine(ctx, e)
		var ee *forecast.ParamError
		if !errors.As(err, &ee) {
			t.Errorf("%s: want *ParamError, got %v", name, err)
		}
	}
}
