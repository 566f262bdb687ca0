package graphcloak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// ReleaseRequest is one private release of per-node readings on a graph.
type ReleaseRequest struct {
	Graph *laplacian.Graph
	// Values are the true readings y, one per node in graph index order
	// (see ValuesByKey). They are never returned, logged or printed.
	Values []float64
	// Tau is the diffusion time τ > 0 of the measurement M = exp(−τL);
	// Alpha the neighbourhood radius α > 0 (EMD, hops).
	Tau, Alpha float64
	// Epsilon > 0 and Delta in (0, 1) are the guarantee of this release.
	Epsilon, Delta float64
	// Mechanism: privacy.MechanismDefault (the discrete Gaussian with
	// zCDP accounting) or privacy.MechanismClassic (ε < 1).
	Mechanism privacy.Mechanism
	// Noise is the noise source; the zero value is crypto/rand.
	Noise privacy.NoiseSource
	// Ledger is charged before any noise is drawn; required.
	Ledger privacy.Ledger
	// Scope is the ledger scope; Epoch the release id (charged once).
	Scope, Epoch string
	// Sensitivity, when non-nil, is a Δ2 computed before for this graph,
	// τ and α (e.g. by a dry run); otherwise Release computes it.
	Sensitivity *sensitivity.Result
	// SensitivityOptions tune sensitivity.Graph (zero: defaults).
	SensitivityOptions sensitivity.Options
	// Progress, if non-nil, reports the "sensitivity" step.
	Progress Progress
	// Smooth is extra diffusion τ′ ≥ 0 applied to the readings before the
	// noise (post-processing of the readings): the release is
	// exp(−τ′L)·y + Z, calibrated on Δ2 at τ + τ′ plus √2·α times the
	// certified error bound of the action, and its metadata says τ + τ′,
	// the model locate then uses. Sensitivity, when given, must hold at
	// τ + τ′ (a Δ2 at τ does: Δ2 is non-increasing in τ). Unmask of a
	// smoothed release returns exp(−τ′L)·y, not y.
	Smooth float64
	// Check, when non-nil, is called with the calibration (σ, ρ) once Δ2
	// is certified and before the ledger is charged; an error from it
	// stops the release with nothing charged or drawn (e.g. a forecast
	// that says the release would be noise).
	Check func(context.Context, privacy.ReleaseCalibration) error
}

// ReleaseResult is the public outcome of a release: the released values
// and how they were made. It holds no true value.
type ReleaseResult struct {
	Released    *privacy.Released
	Sensitivity sensitivity.Result
	// SensitivityMillis and ReleaseMillis time the two steps.
	SensitivityMillis int64
	ReleaseMillis     int64
}

// Release computes the certified sensitivity Δ2 of y = exp(−τL)f on
// req.Graph (sensitivity.Graph), then releases the readings with
// privacy.Release: the ledger is charged ρ before noise is drawn, and the
// values published are ỹ_i = y_i + Z_i with discrete Gaussian Z_i of σ
// calibrated to Δ2, ε, δ. It holds no mathematics of its own.
func Release(ctx context.Context, req ReleaseRequest) (*ReleaseResult, error) {
	g := req.Graph
	if g == nil || g.N() == 0 {
		return nil, laplacian.ErrEmptyGraph
	}
	if len(req.Values) != g.N() {
		return nil, &ParamError{Param: "values", Reason: fmt.Sprintf("has %d entries for %d nodes", len(req.Values), g.N())}
	}
	if err := checkParams(req.Tau, req.Alpha, req.Epsilon, req.Delta); err != nil {
		return nil, err
	}
	if req.Ledger == nil {
		return nil, &ParamError{Param: "ledger", Reason: "is required (it is charged before noise is drawn)"}
	}
	values, tau, extra, err := smoothed(g, req)
	if err != nil {
		return nil, err
	}
	res := &ReleaseResult{}
	start := time.Now()
	if req.Sensitivity != nil {
		res.Sensitivity = *req.Sensitivity
	} else {
		opt := req.SensitivityOptions
		if opt.Progress == nil {
			opt.Progress = req.Progress.report("sensitivity")
		}
		s, err := sensitivity.GraphContext(ctx, g, tau, req.Alpha, opt)
		if err != nil {
			return nil, err
		}
		res.Sensitivity = s
	}
	res.SensitivityMillis = time.Since(start).Milliseconds()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sens, err := precheck(ctx, req, res.Sensitivity, values, tau, extra)
	if err != nil {
		return nil, err
	}
	start = time.Now()
	rel, err := privacy.Release(ctx, privacy.ReleaseRequest{
		Keys: g.Keys(), Values: values, Sensitivity: sens,
		Epsilon: req.Epsilon, Delta: req.Delta, Mechanism: req.Mechanism, Noise: req.Noise,
		Ledger: req.Ledger, Scope: req.Scope, Epoch: req.Epoch,
	})
	if err != nil {
		return nil, err
	}
	fp := g.Fingerprint()
	rel.Meta.Tau, rel.Meta.Alpha, rel.Meta.Graph, rel.Meta.Smooth = tau, req.Alpha, &fp, req.Smooth
	rel.Meta.SensitivityMethod, rel.Meta.SensitivityExact = res.Sensitivity.Method, res.Sensitivity.Exact
	res.Released = rel
	res.ReleaseMillis = time.Since(start).Milliseconds()
	return res, nil
}

// PrecheckRelease returns the error Release would refuse req with once its
// Δ2 is known — req.Sensitivity, required — before anything is charged or
// drawn, and nil when Release would go on to the charge: the parameters
// and values, Δ2 certified and > 0, the calibration (a τ so large that σ
// falls below the finest noise grid is refused naming the largest usable
// τ), the values on the noise grid, and req.Check. A dry run calls it so
// that it refuses what the release refuses, with the same error.
func PrecheckRelease(ctx context.Context, req ReleaseRequest) (privacy.ReleaseCalibration, error) {
	g := req.Graph
	if g == nil || g.N() == 0 {
		return privacy.ReleaseCalibration{}, laplacian.ErrEmptyGraph
	}
	if len(req.Values) != g.N() {
		return privacy.ReleaseCalibration{}, &ParamError{Param: "values", Reason: fmt.Sprintf("has %d entries for %d nodes", len(req.Values), g.N())}
	}
	if err := checkParams(req.Tau, req.Alpha, req.Epsilon, req.Delta); err != nil {
		return privacy.ReleaseCalibration{}, err
	}
	if req.Sensitivity == nil {
		return privacy.ReleaseCalibration{}, &ParamError{Param: "sensitivity", Reason: "is required by PrecheckRelease"}
	}
	values, tau, extra, err := smoothed(g, req)
	if err != nil {
		return privacy.ReleaseCalibration{}, err
	}
	sens, err := precheck(ctx, req, *req.Sensitivity, values, tau, extra)
	if err != nil {
		return privacy.ReleaseCalibration{}, err
	}
	return privacy.CalibrateRelease(sens, req.Epsilon, req.Delta, g.N(), req.Mechanism)
}

// precheck is what Release refuses once Δ2 (s, at the model's τ) is
// known, before the charge; it returns the sensitivity the noise is
// calibrated on.
func precheck(ctx context.Context, req ReleaseRequest, s sensitivity.Result, values []float64, tau, extra float64) (float64, error) {
	if !s.Certified {
		return 0, &ParamError{Param: "sensitivity", Reason: "is not certified; refusing to release"}
	}
	if !(s.Delta2 > 0) {
		return 0, &ParamError{Param: "sensitivity", Reason: "is zero (a graph without edges has nothing to protect by diffusion); refusing to release"}
	}
	sens := roundUpSum(s.Delta2, extra)
	cal, err := privacy.CalibrateRelease(sens, req.Epsilon, req.Delta, req.Graph.N(), req.Mechanism)
	if isGridError(err) {
		return 0, tauTooLarge(ctx, req, tau, s.Delta2)
	}
	if err != nil {
		return 0, err
	}
	for _, y := range values {
		// As privacy.Release checks them on the grid (no value printed).
		if v := math.Ldexp(y, cal.GridExponent); math.IsNaN(v) || math.Abs(v) > 1<<61 {
			return 0, &ParamError{Param: "values", Reason: fmt.Sprintf("hold a reading that is not finite or too large for the noise grid 2^-%d of σ = %.3g", cal.GridExponent, cal.Sigma)}
		}
	}
	if req.Check != nil {
		if err := req.Check(ctx, cal); err != nil {
			return 0, err
		}
	}
	return sens, nil
}

// isGridError is a calibration that found no noise grid for σ: σ below
// what the discrete Gaussian's finest grid (2^-60) can carry.
func isGridError(err error) bool {
	var ae *privacy.ArgumentError
	return errors.As(err, &ae) && ae.Param == "grid exponent"
}

// tauSearchBudget bounds the search for the largest usable τ.
const tauSearchBudget = 10 * time.Second

// tauTooLarge is the refusal of a τ whose Δ2 (delta2, at the model's τ)
// gives a σ no noise grid can carry: with the largest usable τ, found by
// halving τ and bisecting (Δ2 is non-increasing in τ), within
// tauSearchBudget.
func tauTooLarge(ctx context.Context, req ReleaseRequest, tau, delta2 float64) error {
	g := req.Graph
	usable := func(t float64) (bool, error) {
		s, err := sensitivity.GraphContext(ctx, g, t+req.Smooth, req.Alpha, sensitivity.Options{TimeBudget: req.SensitivityOptions.TimeBudget})
		if err != nil {
			return false, err
		}
		if !(s.Delta2 > 0) {
			return false, nil
		}
		_, err = privacy.CalibrateRelease(s.Delta2, req.Epsilon, req.Delta, g.N(), req.Mechanism)
		return err == nil, nil
	}
	deadline := time.Now().Add(tauSearchBudget)
	lo, hi, found := req.Tau, req.Tau, false
	for i := 0; i < 80 && time.Now().Before(deadline); i++ {
		lo /= 2
		ok, err := usable(lo)
		if err != nil {
			break
		}
		if ok {
			found = true
			break
		}
		hi = lo
	}
	reason := fmt.Sprintf("= %g is more diffusion than this graph carries at ε = %g: any source has spread so evenly that moving one unit changes the readings by at most Δ2 = %.3g, and σ ∝ Δ2 falls below the finest noise grid (2^-60), so no noise can be drawn", req.Tau, req.Epsilon, delta2)
	if !found {
		return tauError(errkind.Errorf("%s; no usable τ was found down to %.3g: use a smaller %s", reason, lo, ParamTau))
	}
	for i := 0; i < 12 && time.Now().Before(deadline); i++ {
		mid := math.Sqrt(lo * hi)
		ok, err := usable(mid)
		if err != nil {
			break
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Three significant digits, rounded down (still usable).
	p := math.Pow(10, math.Floor(math.Log10(lo))-2)
	best := math.Floor(lo/p) * p
	return tauError(errkind.Errorf("%s; the largest usable τ here is about %.3g (%s %.3g or less)", reason, best, ParamTau, best))
}

// smoothed returns the values to release, the τ of their model and the
// sensitivity allowance of the smoothing action: the readings themselves,
// τ and 0 without smoothing.
func smoothed(g *laplacian.Graph, req ReleaseRequest) (values []float64, tau, extra float64, err error) {
	if math.IsNaN(req.Smooth) || math.IsInf(req.Smooth, 0) || req.Smooth < 0 {
		return nil, 0, 0, &ParamError{Param: "smooth", Reason: fmt.Sprintf("must be finite and ≥ 0, got %v", req.Smooth)}
	}
	if req.Smooth == 0 {
		return req.Values, req.Tau, 0, nil
	}
	act, err := expm.NewAction(g, req.Smooth, expm.Options{Columns: 1, OwnOrder: true}) // one column
	if err != nil {
		return nil, 0, 0, err
	}
	values = make([]float64, len(req.Values))
	act.Apply(values, req.Values, 1)
	// ‖(Ã − A)M b‖ ≤ E·‖M b‖ ≤ E·α√2 for an edge move b of α.
	return values, req.Tau + req.Smooth, act.ErrorBound() * req.Alpha * math.Sqrt2, nil
}

// roundUpSum returns a + b rounded up.
func roundUpSum(a, b float64) float64 {
	if b == 0 {
		return a
	}
	return math.Nextafter(a+b, math.Inf(1))
}

// ValuesError reports a problem with raw readings. It names the line or
// node, never the reading itself (readings are private).
type ValuesError struct {
	Line   int    // 1-based CSV line, 0 when not from a file
	Key    string // node key, when known
	Reason string
	Err    error
	// reason is Reason naming parameters, when it does.
	reason errkind.Renderer
}

func (e *ValuesError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does.
func (e *ValuesError) RenderText(name func(errkind.Param) string) string {
	var b strings.Builder
	b.WriteString("graphcloak: values")
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": node %q", e.Key)
	}
	b.WriteString(": " + renderReason(e.Reason, e.reason, name))
	return b.String()
}

func (e *ValuesError) Unwrap() error { return e.Err }

// ReadValues reads raw readings as CSV rows "node,value" — what a sensor
// gateway sends — by graphcloak's CSV rules (package internal/csvin:
// byte-order mark ignored, '#' comment lines, unquoted fields trimmed,
// quoted keys verbatim). header says whether the first row is a header, as
// the header parameter does: "auto" (or "") when it names its columns
// (node/id/key/name, value/reading) — a first row whose value is not a
// number and whose names are not recognised is then an error —, "yes" to
// skip it whatever it holds, "no" to read it as a reading. Values must be
// finite; a node listed twice is an error. Errors never quote a value.
func ReadValues(r io.Reader, header string) (map[string]float64, error) {
	return readValues(r, header, false)
}

// ReadAnswerValues is ReadValues for a private answer: a value that is
// not a finite number (NaN, ±Inf, unreadable) is read as NaN, not refused
// naming its node — a sensor broken by the event is next to the source,
// and the answer treats such readings as outside its model
// (answer.Model.FitReadings), the node named only on the operator's
// request. That holds on the first data row too; an unreadable first row
// under header auto (a header of other names, or a broken first reading)
// is skipped, so its node has no reading: NaN. Every other rule is
// ReadValues'.
func ReadAnswerValues(r io.Reader, header string) (map[string]float64, error) {
	return readValues(r, header, true)
}

func readValues(r io.Reader, header string, broken bool) (map[string]float64, error) {
	mode, err := csvin.ParseHeader(header)
	if err != nil {
		reason := err.(errkind.Renderer)
		return nil, &ValuesError{Reason: reason.Error(), reason: reason}
	}
	cr := csvin.NewReader(r)
	out := make(map[string]float64)
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ce *csvin.Error
			if errors.As(err, &ce) {
				return nil, &ValuesError{Line: ce.Line, Reason: ce.Msg}
			}
			return nil, &ValuesError{Reason: "cannot read", Err: err}
		}
		f, line := rec.Fields, rec.Line
		firstRow := first
		if first {
			first = false
			switch {
			case mode == csvin.HeaderYes:
				continue
			case mode == csvin.HeaderAuto && len(f) == 2 && (csvin.IsName(f[0], csvin.KeyNames...) || csvin.IsName(f[1], csvin.ValueNames...)):
				continue
			}
		}
		if len(f) != 2 {
			return nil, &ValuesError{Line: line, Reason: fmt.Sprintf("want 2 fields node,value, got %d", len(f))}
		}
		key := f[0]
		v, perr := strconv.ParseFloat(f[1], 64)
		if key == "" {
			return nil, &ValuesError{Line: line, Reason: "empty node key"}
		}
		switch {
		case broken && perr != nil && firstRow && mode == csvin.HeaderAuto:
			// An unreadable first row is a header with other names or a
			// broken first reading: skipped either way, its node has no
			// reading (NaN), and no error names it.
			continue
		case broken && (perr != nil || math.IsNaN(v) || math.IsInf(v, 0)):
			// Wherever the broken sensor's row is, the first data row
			// included: an error naming it would publish the node.
			v = math.NaN()
		case perr != nil || math.IsNaN(v) || math.IsInf(v, 0):
			ve := &ValuesError{Line: line, Key: key, Reason: "value is not a finite number"}
			if line == 1 || len(out) == 0 && mode == csvin.HeaderAuto {
				ve.reason = errkind.Errorf("%s (a header row must be named node,value; or pass %s yes)", ve.Reason, ParamHeader).(errkind.Renderer)
				ve.Reason = ve.reason.Error()
			}
			return nil, ve
		}
		if _, dup := out[key]; dup {
			return nil, &ValuesError{Line: line, Key: key, Reason: "node listed twice"}
		}
		out[key] = v
	}
	if len(out) == 0 {
		return nil, &ValuesError{Reason: "no readings"}
	}
	return out, nil
}

// ValuesByKey orders readings by graph index. Every reading must name a
// node of g (a *ValuesError names the first unknown key, in sorted order,
// and a node without a reading its spelling may have meant: "07" for "7")
// and every node needs a reading (a *ValuesError wrapping ErrMissingValue
// names the first missing ones). Unknown keys are reported first: a
// misspelt key is why its node has no reading.
func ValuesByKey(g *laplacian.Graph, byKey map[string]float64) ([]float64, error) {
	return valuesByKey(g, byKey, false)
}

// AnswerValuesByKey is ValuesByKey for a private answer: a node without a
// reading gets NaN (a broken reading, outside the answer's model), never
// an error naming it.
func AnswerValuesByKey(g *laplacian.Graph, byKey map[string]float64) ([]float64, error) {
	return valuesByKey(g, byKey, true)
}

func valuesByKey(g *laplacian.Graph, byKey map[string]float64, broken bool) ([]float64, error) {
	if err := unknownKeys(g, byKey, !broken); err != nil {
		return nil, err
	}
	y := make([]float64, g.N())
	var missing []string
	count := 0
	for i := range y {
		v, ok := byKey[g.Key(i)]
		if !ok && broken {
			y[i] = math.NaN()
			continue
		}
		if !ok {
			if len(missing) < 5 {
				missing = append(missing, strconv.Quote(g.Key(i)))
			}
			count++
			continue
		}
		y[i] = v
	}
	if count > 0 {
		return nil, &ValuesError{Reason: fmt.Sprintf("%d nodes have no reading (%s)", count, strings.Join(missing, ", ")), Err: ErrMissingValue}
	}
	return y, nil
}

// unknownKeys is the *ValuesError for the readings of byKey that name no
// node of g, nil when there are none. With hint it names the node without
// a reading the first key may have meant; a private answer gives none (which
// node has no reading is a broken reading, never named).
func unknownKeys(g *laplacian.Graph, byKey map[string]float64, hint bool) error {
	var unknown []string
	for k := range byKey {
		if _, ok := g.IndexOf(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	reason := "is not a node of the graph"
	if i, ok := g.IndexOf(strings.TrimLeft(strings.TrimSpace(unknown[0]), "0")); ok && hint {
		if _, has := byKey[g.Key(i)]; !has {
			reason += fmt.Sprintf(" (node %q has no reading: is it that node?)", g.Key(i))
		}
	}
	if n := len(unknown) - 1; n > 0 {
		more := unknown[1:min(len(unknown), 5)]
		for i := range more {
			more[i] = strconv.Quote(more[i])
		}
		reason += fmt.Sprintf("; %d other keys name no node either (%s)", n, strings.Join(more, ", "))
	}
	return &ValuesError{Key: unknown[0], Reason: reason}
}
