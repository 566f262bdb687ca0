package forecast

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// EpsilonSweep forecasts each way of releasing on one graph at several ε, and,
// with a target, finds the smallest ε on a grid at which each reaches it.
type EpsilonSweep struct {
	// Graph fixes the graph, partition, τ, δ, α, estimator, trials and
	// seed; its Sensitivity (Δ2 at τ and α) is required for ModePerNode.
	Graph Simulation
	// Epsilons to forecast.
	Epsilons []float64
	// Modes among ModePerNode and ModeAnswer (default both).
	Modes []string
	// Target, when > 0, is the community accuracy to reach.
	Target float64
	// PerNodeMaxEpsilon, when set, is the largest ε the per-node target
	// search tries (a local release's sensors refuse the σ of a larger
	// one): EpsilonGrid's points up to it, then it. At 0 no ε is tried.
	PerNodeMaxEpsilon *float64
	// Geometry of the partition, when computed before.
	Geometry *privacy.CommunityGeometry
	// Exact, when set, holds the rows computed instead of simulated, by
	// mode and ε (a private answer's audit over every source,
	// ExactAnswer): they are used as given (the sweep adds their
	// ceilings; the memo does not keep them), and a mode whose listed ε
	// all have one simulates nothing unless the target's search asks.
	Exact map[string]map[float64]Forecast
	// Memo, when set, keeps each (mode, ε)'s forecast across runs and
	// returns those it holds instead of simulating them again.
	Memo Memo
	// KeptTrials, KeepTrials and HasTrials, when set (with Memo), keep
	// the per-node forecasts' pool of trials across runs, each block by
	// key (keptTrials): KeptTrials returns the floats kept under key when
	// there are exactly floats of them, KeepTrials keeps x (a failure
	// only costs the next run the draws), HasTrials says, reading little,
	// whether KeptTrials would likely find them (an estimate's question).
	KeptTrials func(key string, floats int) ([]float64, bool)
	KeepTrials func(key string, x []float64)
	HasTrials  func(key string, floats int) bool
	// Progress, when set, makes the progress callback of each long step
	// ("forecasts by source mass" for every per-node row at once,
	// "forecast ε = 1" for the target's search); without it the target's
	// forecasts report to Graph.Progress and the rows to nothing.
	Progress func(step string) func(done, total int)
	// BarCost, when set, prices the work of the bar "forecasts by source
	// mass" as the step's estimate does (cost's model: a trial drawn, a
	// null draw and a trial scored), called only when curves are computed
	// under a bar; unset, the bar weighs them as on the graphs cost's
	// rates were timed on.
	BarCost func() PilotCost
}

// progress is the callback of step: p.Progress's, else fallback.
func (p EpsilonSweep) progress(step string, fallback func(done, total int)) func(done, total int) {
	if p.Progress == nil {
		return fallback
	}
	return p.Progress(step)
}

// EpsilonSweepResult holds the forecasts (by mode, then ε), the ceiling per ε,
// and per mode the smallest ε reaching the target.
type EpsilonSweepResult struct {
	Forecasts []Forecast      `json:"forecasts"`
	Needed    []NeededEpsilon `json:"needed,omitempty"`
	Millis    int64           `json:"computeMillis"`
}

// NeededEpsilon is the smallest ε on EpsilonGrid whose forecast reaches
// the target (Reached false: not even the grid's largest).
type NeededEpsilon struct {
	Mode      string   `json:"mode"`
	Mechanism string   `json:"mechanism"`
	Target    float64  `json:"target"`
	Epsilon   *float64 `json:"epsilon"`
	Reached   bool     `json:"reached"`
	Forecast  Forecast `json:"forecast"`
	// MaxEpsilon is the largest ε searched when the search was capped
	// (EpsilonSweep.PerNodeMaxEpsilon); nil: EpsilonGrid's largest.
	MaxEpsilon *float64 `json:"maxEpsilon,omitempty"`
	// Smooth is the extra diffusion τ′ of a smoothed per-node release
	// (0: none), which Mode does not name: a caller labels it with the
	// name it gives the parameter.
	Smooth float64 `json:"-"`
}

// EpsilonGrid is the ε searched for a target: 1/8 … 32 in steps of √2.
func EpsilonGrid() []float64 {
	var out []float64
	for j := -6; j <= 10; j++ {
		out = append(out, math.Round(math.Pow(math.Sqrt2, float64(j))*1000)/1000)
	}
	return out
}

// SweepEpsilons runs an EpsilonSweep.
func SweepEpsilons(ctx context.Context, p EpsilonSweep) (*EpsilonSweepResult, error) {
	start := time.Now()
	modes := p.Modes
	if len(modes) == 0 {
		modes = []string{ModePerNode, ModeAnswer}
	}
	res := &EpsilonSweepResult{}
	var fp *laplacian.Fingerprint
	if p.Memo != nil {
		f := p.Graph.Graph.Fingerprint()
		fp = &f
	}
	ceilings := &ceilingMemo{fp: fp, byEps: map[float64]float64{}} // by ε, shared by the modes
	for _, mode := range modes {
		if err := checkMode(mode); err != nil {
			return nil, err
		}
		var rows map[float64]Forecast
		if mode == ModePerNode {
			var err error
			if rows, err = p.perNodeRows(ctx, fp, ceilings); err != nil {
				return nil, err
			}
		}
		var made func(eps float64) (Forecast, error)
		plain := func(eps float64) (Forecast, error) {
			if made == nil {
				var err error
				if made, err = p.forecaster(ctx, mode, ceilings); err != nil {
					return Forecast{}, err
				}
			}
			return made(eps)
		}
		// A row is the forecast (per-node: with its mass curve); the
		// target's search reads the forecast alone (a key of its own).
		kept := p.memoized(fp, mode+" row", func(eps float64) (Forecast, error) {
			if f, ok := rows[eps]; ok {
				return f, nil
			}
			return plain(eps)
		})
		// Exact rows are the caller's, rebuilt each run (not memoized:
		// they depend on what made them, the audit's model).
		row := func(eps float64) (Forecast, error) {
			if f, ok := p.Exact[mode][eps]; ok {
				return f, p.ceiling(ctx, &f, eps, ceilings)
			}
			return kept(eps)
		}
		fc := p.memoized(fp, mode, plain)
		// The private answer's rows calibrate its mechanism at each ε
		// (seconds each on 10⁴ nodes): a bar of their own.
		var bar func(done, total int)
		if mode == ModeAnswer {
			// The trials first, under their own bar, unless every row is
			// kept or exact.
			if p.simulates(fp, mode) && made == nil {
				var err error
				if made, err = p.forecaster(ctx, mode, ceilings); err != nil {
					return nil, err
				}
			}
			if made != nil {
				if bar = p.progress("private-answer calibration", nil); bar != nil {
					bar(0, len(p.Epsilons))
				}
			}
		}
		for i, eps := range p.Epsilons {
			f, err := row(eps)
			if err != nil {
				return nil, err
			}
			res.Forecasts = append(res.Forecasts, f)
			if bar != nil {
				bar(i+1, len(p.Epsilons))
			}
		}
		if p.Target > 0 {
			grid := EpsilonGrid()
			capped := mode == ModePerNode && p.PerNodeMaxEpsilon != nil && *p.PerNodeMaxEpsilon < grid[len(grid)-1]
			if capped {
				grid = cappedGrid(*p.PerNodeMaxEpsilon)
			}
			need, err := smallestEpsilon(fc, p.Target, grid)
			if err != nil {
				return nil, err
			}
			need.Mode = mode
			if capped {
				need.MaxEpsilon = p.PerNodeMaxEpsilon
			}
			res.Needed = append(res.Needed, need)
		}
	}
	res.Millis = time.Since(start).Milliseconds()
	return res, nil
}

// perNodeRows returns the per-node rows at every ε of the sweep the memo
// does not hold: each the unit-source forecast with its mass curve (what
// source mass a release at this ε resolves; the row is the curve's 1-unit
// point). The curves are computed together (MassCurves): each mass's
// trials are drawn once for every ε.
func (p EpsilonSweep) perNodeRows(ctx context.Context, fp *laplacian.Fingerprint, ceilings *ceilingMemo) (map[float64]Forecast, error) {
	e := p.Graph
	if e.Sensitivity == nil && e.Sigma == 0 {
		return nil, &ParamError{"sensitivity", nil, "is required for a per-node forecast"}
	}
	kept := p.held(fp, ModePerNode)
	var missing []Simulation
	for _, eps := range p.Epsilons {
		if slices.Contains(kept, eps) {
			continue
		}
		g := e
		g.Epsilon = eps
		missing = append(missing, g)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	missing[0].Progress = p.progress("forecasts by source mass", nil)
	if p.BarCost != nil && missing[0].Progress != nil { // no bar, nothing to weigh
		missing[0].barCost = p.BarCost()
	}
	curves, err := massCurves(ctx, missing, e.Seed, nil, p.keptQuantile(fp), p.keptTrials(fp))
	if err != nil {
		return nil, err
	}
	rows := map[float64]Forecast{}
	// The routed ceilings take seconds each on 10⁴ nodes: a bar of their own.
	bar := p.progress("ceilings", nil)
	for i, c := range curves {
		eps := missing[i].Epsilon
		f := c.Unit
		if bar != nil {
			bar(i, len(curves))
		}
		if err := p.ceiling(ctx, &f, eps, ceilings); err != nil {
			return nil, err
		}
		if bar != nil {
			bar(i+1, len(curves))
		}
		f.SetMassCurve(c.Points, c.Resolvable)
		// The row is the curve's 1-unit point: an answer there below a mass
		// at chance is the simulation's error.
		f.AtChance = !Resolves(f.ResolvableMass, 1)
		rows[eps] = f
	}
	return rows, nil
}

// ceilingMemo keeps the routed ceiling of each ε for every mode of a
// sweep; with a Memo (fp set) also across runs.
type ceilingMemo struct {
	fp    *laplacian.Fingerprint
	byEps map[float64]float64
}

// ceiling sets f.Ceiling, RoutedCeiling at ε on the sweep's partition,
// computed once per ε (memo, and the sweep's Memo: seconds each on 10⁴
// nodes, and the private answer's exact rows are rebuilt every run).
func (p EpsilonSweep) ceiling(ctx context.Context, f *Forecast, eps float64, memo *ceilingMemo) error {
	e := p.Graph
	part := e.Partition
	if p.Geometry != nil {
		part = p.Geometry.Partition()
	}
	if part == nil {
		return nil
	}
	if _, ok := memo.byEps[eps]; !ok {
		kept, err := p.memoized(memo.fp, ceilingRow, func(eps float64) (Forecast, error) {
			c, err := RoutedCeiling(ctx, e.Graph, part, eps, e.Delta)
			return Forecast{Epsilon: eps, Ceiling: c}, err
		})(eps)
		if err != nil {
			return err
		}
		memo.byEps[eps] = kept.Ceiling
	}
	f.Ceiling = memo.byEps[eps]
	return nil
}

// ceilingRow is the memo's mode of the ceilings: Held(CeilingMode)
// finds them.
const ceilingRow = CeilingMode + " row"

// CeilingMode names the routed ceilings in Held: the ε whose ceiling the
// memo keeps.
const CeilingMode = "ceiling"

// simulates reports whether some listed ε of mode is neither kept in the
// memo nor given exactly: its simulation must run.
func (p EpsilonSweep) simulates(fp *laplacian.Fingerprint, mode string) bool {
	kept := p.held(fp, mode)
	for _, eps := range p.Epsilons {
		if _, ok := p.Exact[mode][eps]; !ok && !slices.Contains(kept, eps) {
			return true
		}
	}
	return false
}

// checkMode refuses a mode the sweep does not know.
func checkMode(mode string) error {
	if mode != ModePerNode && mode != ModeAnswer {
		return &ParamError{"mode", mode, "must be " + ModePerNode + " or " + ModeAnswer}
	}
	return nil
}

// forecaster returns the forecast at ε for one mode; the answer mode
// simulates its recoveries once. The ceiling is RoutedCeiling, computed
// once per ε (memo).
func (p EpsilonSweep) forecaster(ctx context.Context, mode string, memo *ceilingMemo) (func(eps float64) (Forecast, error), error) {
	e := p.Graph
	ceiling := func(f *Forecast, eps float64) error { return p.ceiling(ctx, f, eps, memo) }
	switch mode {
	case ModeAnswer:
		a := AnswerSimulation{Graph: &e, Alpha: e.Alpha, Geometry: p.Geometry}
		rs, err := a.recover(ctx)
		if err != nil {
			return nil, err
		}
		return func(eps float64) (Forecast, error) {
			r, err := rs.score(ctx, eps, a.Alpha, 0, nil)
			if err != nil {
				return Forecast{}, err
			}
			f := OfAnswer(r)
			f.Delta = e.Delta
			return f, ceiling(&f, eps)
		}, nil
	case ModePerNode:
		if e.Sensitivity == nil && e.Sigma == 0 {
			return nil, &ParamError{"sensitivity", nil, "is required for a per-node forecast"}
		}
		return func(eps float64) (Forecast, error) {
			g := e
			// The unit sources of perNodeRows: the same draws (the pool
			// of the plan's seed) for every ε.
			g.Epsilon, g.Seed = eps, e.Seed
			g.Progress = p.progress(fmt.Sprintf("forecast ε = %g", eps), e.Progress)
			// As locate forecasts: its AtChance is locate's noise verdict.
			f, err := PerNode(ctx, g)
			if err != nil {
				return Forecast{}, err
			}
			return f, ceiling(&f, eps)
		}, nil
	}
	return nil, &ParamError{"mode", mode, "must be " + ModePerNode + " or " + ModeAnswer}
}

// cappedGrid is EpsilonGrid's points below max, then max itself (none
// when max ≤ 0); max is below EpsilonGrid's largest.
func cappedGrid(max float64) []float64 {
	var out []float64
	for _, eps := range EpsilonGrid() {
		if eps < max {
			out = append(out, eps)
		}
	}
	if max > 0 {
		out = append(out, max)
	}
	return out
}

// smallestEpsilon bisects grid (increasing) for the first ε whose
// forecast reaches target (the accuracy grows with ε); an empty grid
// reaches nothing.
func smallestEpsilon(fc func(float64) (Forecast, error), target float64, grid []float64) (NeededEpsilon, error) {
	need := NeededEpsilon{Target: target}
	if len(grid) == 0 {
		return need, nil
	}
	cache := map[int]Forecast{}
	at := func(i int) (Forecast, error) {
		if f, ok := cache[i]; ok {
			return f, nil
		}
		f, err := fc(grid[i])
		cache[i] = f
		return f, err
	}
	lo, hi := -1, len(grid)-1 // invariant: grid[hi] reaches (checked below), grid[lo] does not
	top, err := at(hi)
	if err != nil {
		return need, err
	}
	need.Mechanism = top.Mechanism
	if top.CommunityAccuracy < target {
		need.Forecast = top
		return need, nil
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		f, err := at(mid)
		if err != nil {
			return need, err
		}
		if f.CommunityAccuracy >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	need.Forecast = cache[hi]
	need.Mechanism = need.Forecast.Mechanism
	need.Reached = true
	eps := grid[hi]
	need.Epsilon = &eps
	return need, nil
}
