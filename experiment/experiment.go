package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/trials"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return &forecast.ParamError{Param: name, Value: v, Reason: "must be positive and finite"}
	}
	return nil
}

// Line is the paper's Figure 1 setting: unit sources on the grid
// x_j = j/n of the unit interval, m sensors at s_i = i/m, heat kernel at time
// T, Gaussian noise, recovery, EMD against the truth.
type Line struct {
	N, M int     // source grid points and sensors (paper: 100, 50)
	T    float64 // diffusion time μt (paper: 0.05)
	// Sigma is a fixed, non-private noise level (paper: 0.1). When zero, σ
	// is calibrated privately from Epsilon and Delta with Mechanism on
	// Δ2 = sensitivity.Line(N, M, T, Alpha).
	Sigma          float64
	Epsilon, Delta float64
	// Mechanism calibrates σ; the zero value means the discrete Gaussian
	// with CKS20 accounting, the σ that privacy.Release publishes with.
	Mechanism privacy.Mechanism
	Alpha     float64 // neighbour EMD radius; default 1/N (one grid step of unit mass)
	// Sources are source positions in (0, 1], each snapped to the nearest
	// grid point j/N and carrying unit mass (paper: 0.24, 0.76).
	Sources   []float64
	Trials    int    // ≥ 1
	Estimator string // recovery.ByName; "" = recovery.Default
	Seed      uint64
	Workers   int // parallel trials; default GOMAXPROCS
	// Progress, when non-nil, is called after each finished trial.
	Progress func(done, total int)
}

// LineResult summarises a line experiment. EMD statistics are over the
// trials with a non-zero estimate (the others count in NoSourceRate).
type LineResult struct {
	Trials       int       `json:"trials"`
	Estimator    string    `json:"estimator"`
	N            int       `json:"n"`
	M            int       `json:"m"`
	T            float64   `json:"tau"`
	Sources      []float64 `json:"sources"` // snapped positions
	Sigma        float64   `json:"sigma"`
	Mechanism    string    `json:"mechanism,omitempty"` // how σ was calibrated; empty for a fixed σ
	Private      bool      `json:"private"`
	Epsilon      float64   `json:"epsilon,omitempty"`
	Delta        float64   `json:"delta,omitempty"`
	Delta2       float64   `json:"delta2,omitempty"`
	EMDMean      float64   `json:"emdMean"`
	EMDMax       float64   `json:"emdMax"`
	EMDStd       float64   `json:"emdStd"`
	NoSourceRate float64   `json:"noSourceRate"`
	Seed         uint64    `json:"seed"`
	// Example is trial 0, for plotting: X are the grid points, F0 the true
	// sources, FHat the estimate.
	Example *LineTrace `json:"-"`
	// EMDs are the EMDs of the trials with a non-zero estimate, in trial
	// order, for the distribution plot.
	EMDs []float64 `json:"-"`
}

// LineTrace is one trial on the line.
type LineTrace struct {
	X, F0, FHat []float64
}

// RunLine runs a Line: for each trial ỹ = A f0 + N(0, σ²I),
// f̂ from the estimator, and EMD(f0/‖f0‖₁, f̂/‖f̂‖₁) on the grid (spacing 1/N).
func RunLine(ctx context.Context, e Line) (*LineResult, error) {
	if e.N < 2 {
		return nil, &forecast.ParamError{Param: "n", Value: e.N, Reason: "must be at least 2"}
	}
	if e.M < 1 {
		return nil, &forecast.ParamError{Param: "m", Value: e.M, Reason: "must be at least 1"}
	}
	if err := positive("T", e.T); err != nil {
		return nil, err
	}
	if e.Trials < 1 {
		return nil, &forecast.ParamError{Param: "trials", Value: e.Trials, Reason: "must be at least 1"}
	}
	if len(e.Sources) == 0 {
		return nil, &forecast.ParamError{Param: "sources", Value: e.Sources, Reason: "must name at least one position"}
	}
	if e.Alpha == 0 {
		e.Alpha = 1 / float64(e.N)
	}
	if err := positive("alpha", e.Alpha); err != nil {
		return nil, err
	}
	est, err := recovery.ByName(e.Estimator)
	if err != nil {
		return nil, &forecast.ParamError{Param: "estimator", Value: e.Estimator, Reason: err.Error()}
	}
	res := &LineResult{Trials: e.Trials, Estimator: est.Name(), N: e.N, M: e.M, T: e.T, Seed: e.Seed}
	f0 := make([]float64, e.N)
	for _, x := range e.Sources {
		if !(x > 0 && x <= 1) {
			return nil, &forecast.ParamError{Param: "sources", Value: x, Reason: "must lie in (0, 1]"}
		}
		j := int(math.Round(x*float64(e.N))) - 1
		j = max(0, min(e.N-1, j))
		if f0[j] != 0 {
			return nil, &forecast.ParamError{Param: "sources", Value: e.Sources, Reason: "name the same grid point twice"}
		}
		f0[j] = 1
		res.Sources = append(res.Sources, float64(j+1)/float64(e.N))
	}
	switch {
	case e.Sigma != 0:
		if err := positive("sigma", e.Sigma); err != nil {
			return nil, err
		}
		res.Sigma = e.Sigma
	default:
		sens, err := sensitivity.Line(e.N, e.M, e.T, e.Alpha)
		if err != nil {
			return nil, err
		}
		cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: sens.Delta2, Epsilon: e.Epsilon, Delta: e.Delta, Mechanism: e.Mechanism.Resolve()})
		if err != nil {
			return nil, err
		}
		res.Sigma, res.Private, res.Delta2 = cal.Sigma, true, sens.Delta2
		res.Mechanism = cal.Mechanism.String()
		res.Epsilon, res.Delta = e.Epsilon, e.Delta
	}
	A, err := expm.HeatKernel1D(e.M, e.N, e.T)
	if err != nil {
		return nil, err
	}
	y := make([]float64, e.M)
	mat.NewVecDense(e.M, y).MulVec(A, mat.NewVecDense(e.N, f0))
	model, err := recovery.NewLineModel(e.N, e.M, e.T)
	if err != nil {
		return nil, err
	}
	solve := trials.Solver(model, res.Sigma, len(e.Sources), est)
	spacing := 1 / float64(e.N)
	emd := make([]float64, e.Trials)
	none := make([]bool, e.Trials)
	var example []float64
	err = trials.Run(ctx, e.Trials, trials.Workers(e.Workers, e.Trials), e.Progress, func(t int) error {
		rng := trials.RNG(e.Seed, t)
		yt := make([]float64, e.M)
		for i := range yt {
			yt[i] = y[i] + res.Sigma*rng.NormFloat64()
		}
		f, _, noSource, err := solve(yt)
		if err != nil {
			return fmt.Errorf("graphcloak: trial %d: %w", t, err)
		}
		if t == 0 {
			example = f
		}
		if noSource || trials.Sum(f) <= 0 {
			none[t] = true
			return nil
		}
		d, err := recovery.EMDLine(trials.Normalised(f0), trials.Normalised(f), spacing)
		if err != nil {
			return err
		}
		emd[t] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	var vals []float64
	for t := range emd {
		if !none[t] {
			vals = append(vals, emd[t])
		}
	}
	res.NoSourceRate = float64(e.Trials-len(vals)) / float64(e.Trials)
	res.EMDMean, res.EMDStd, res.EMDMax = trials.Stats(vals)
	res.EMDs = vals
	x := make([]float64, e.N)
	for j := range x {
		x[j] = float64(j+1) / float64(e.N)
	}
	if example == nil {
		example = make([]float64, e.N)
	}
	res.Example = &LineTrace{X: x, F0: f0, FHat: example}
	return res, nil
}

// MarshalJSON writes undefined EMD statistics as null.
func (r *LineResult) MarshalJSON() ([]byte, error) {
	type plain LineResult
	return json.Marshal(struct {
		*plain
		EMDMean *float64 `json:"emdMean"`
		EMDMax  *float64 `json:"emdMax"`
		EMDStd  *float64 `json:"emdStd"`
	}{(*plain)(r), trials.FiniteOrNil(r.EMDMean), trials.FiniteOrNil(r.EMDMax), trials.FiniteOrNil(r.EMDStd)})
}
