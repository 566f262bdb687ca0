package recovery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// A Certifier decides whether readings are the diffusion of one source at
// τ, and which node, with a margin that covers floating-point error. The
// model (docs/derivations.md §5.1) is
//
//	y = μ·a_s + β·1 + e,   a_s = exp(−τL)e_s,  μ ∈ [1e−250, 1e250],
//	n·|β| ≤ B·μ,           B = MaxBackground (public, from the graph),
//	‖P·e‖ ≤ ν·μ/√n,        ν = NoiseBound (public, from the graph and T),
//
// P = I − 11ᵀ/n (the background removed). Both bounds are relative to the
// source's mean reading μ/n (the same at every source: a_s sums to 1) and
// neither depends on where the source is, so whether readings are inside
// the model never depends on the source's position either: for a fixed
// sensor-noise vector e, moving the source one hop keeps them inside.
// ν = T/(1+T)·√n·min_j‖P·a_j‖ makes the relative misfit at every source at
// most T (Tol): ‖P·e‖ ≤ T/(1+T)·μ·‖P·a_s‖ ≤ T·‖P·y‖. With u_j =
// P·a_j/‖P·a_j‖, the relative misfit of node j is the sine of the angle
// between P·y and u_j, and
//
//	cos_j = ⟨P·y, u_j⟩/‖P·y‖ = (exp(−τL)·P·y)_j / (‖P·y‖·‖P·a_j‖)
//
// comes for every j from one action of exp(−τL). Fit takes the node of the
// largest cos_j and accepts it when cos_j ≥ √(1−T²) − e (e the computed
// cosines' error bound): readings inside the model are always accepted, and
// the accepted node's true angle to P·y is then at most θ_acc =
// arccos(√(1−T²) − 2e). Two nodes whose directions are within
// asin(T) + θ_acc of each other cannot be told apart by any reading inside
// the model; Classes merges them, so that "the fitted node's class is the
// source's class" holds for every reading inside the model.
type Certifier struct {
	g   *laplacian.Graph
	act expm.Action
	tau float64
	tol float64
	// norm[j] = ‖P·â_j‖ for the computed column â_j.
	norm []float64
	// eta bounds ‖exp(−τL) − Â‖₂ (the action's certified error).
	eta float64
	// colErr bounds the error of every computed cosine that comes from the
	// action (3η/min_j ‖P·a_j‖).
	colErr float64
	// precision is the largest readings-rounding term (Fit's ζ) a reading
	// may carry: T/100. Classes are computed for it.
	precision float64
	// classes are the sources no in-model reading tells apart (the pass).
	classes *SourceClasses
	// precise: the pass ran the precise action (CertifierOptions.Precise).
	precise bool
	// maxBackground is the model's bound B on a constant background
	// (checkRange).
	maxBackground float64
	// rowsCorrelated counts the columns whose second action the last
	// pass ran (queue skips those that keep no pair).
	rowsCorrelated int
	// mode is what the pass computes and when it stops.
	mode passMode
}

// Precise reports whether the pass needed the precise action: shards of
// the same certificate must be run with CertifierOptions.Precise set so.
func (c *Certifier) Precise() bool { return c.precise }

// DefaultFitTolerance is the default T: readings whose best single-source
// fit leaves more than 1% of their (background-free) signal unexplained
// are not one source's diffusion.
const DefaultFitTolerance = 1e-2

// unit roundoff of float64.
const unitRoundoff = 0x1p-53

// ModelRangeError refuses a τ (or tolerance) at which the graph's diffusions
// cannot be resolved: it depends on the public graph, τ and T only.
type ModelRangeError struct {
	Tau, Tol float64
	Reason   string
	// MaxSensorNoise, when > 0, is the largest stated sensor noise ν
	// (CertifierOptions.SensorNoise) this graph and τ admit.
	MaxSensorNoise float64
}

func (e *ModelRangeError) Error() string {
	return fmt.Sprintf("recovery: τ = %g cannot be certified at fit tolerance %g: %s", e.Tau, e.Tol, e.Reason)
}

// MismatchError says readings are outside the model. Its text (Error) is
// one fixed sentence whatever the readings: it reaches run records, logs
// and exit messages, and measured numbers there would tell neighbouring
// sources apart (karate: the residual alone names 32 of 34 sources under
// one noise vector). What was measured is in the fields and, in words,
// Diagnosis — the operator's non-private diagnostic, never published.
type MismatchError struct {
	// Residual is the best single-source fit's relative misfit (sine of
	// the angle between P·y and the nearest u_j); Tol the allowed one.
	Residual, Tol float64
	// TwoSourceResidual is the relative misfit of the best fit by two
	// sources (greedy), NaN when not measured (Fit does not; Diagnose does).
	TwoSourceResidual float64
	// OtherTau is the τ′ among τ/4, τ/2, 2τ and 4τ at which one of the
	// nodes fitting best at τ explains the readings best, and
	// OtherTauResidual that relative misfit (NaN when not measured).
	OtherTau, OtherTauResidual float64
	// NoSignal: P·y = 0 (the readings are constant: no source, only
	// background), or no node fits with a positive mass.
	NoSignal bool
	// Precision: the readings' own rounding (relative to their source
	// signal) exceeds what the certificate allows — their constant
	// background is more than MaxBackground times the source's mass.
	Precision     bool
	MaxBackground float64
	Tau           float64
	// Broken: a reading is not a number (NaN, ±Inf, missing or
	// unreadable); BrokenNode is the first such node's key. A sensor that
	// fails because of the event is next to the source, so the node is
	// named only by Diagnosis (never published).
	Broken     bool
	BrokenNode string
}

// OutsideModel is the one published text of readings outside the model.
const OutsideModel = "the readings are outside the model (not one source's diffusion at τ within the sensor-noise bound, no source signal, a background beyond the model's bound, or a reading that is not a number)"

func (e *MismatchError) Error() string { return "recovery: " + OutsideModel }

// Diagnosis says in a sentence what was measured: the misfit, and (after
// Diagnose) whether two sources or another τ explain the readings. It
// depends on the readings and is not private: for the operator only.
func (e *MismatchError) Diagnosis() string {
	switch {
	case e.Broken:
		return fmt.Sprintf("the reading of node %s is not a number (NaN, infinite, missing or unreadable)", e.BrokenNode)
	case e.NoSignal:
		return "the readings carry no source signal (constant, or no node fits them with a positive mass)"
	case e.Precision:
		return fmt.Sprintf("the readings' constant background is more than %.3g times the source's mass: their float64 rounding would swamp the source signal at τ = %g (outside the model)", e.MaxBackground, e.Tau)
	}
	s := fmt.Sprintf("the readings are not one source's diffusion at τ = %g: the best single-source fit (any mass, any constant background) leaves %.3g of their signal unexplained, more than the tolerance %g",
		e.Tau, e.Residual, e.Tol)
	if !math.IsNaN(e.OtherTauResidual) && e.OtherTauResidual <= e.Tol {
		s += fmt.Sprintf("; at τ = %g one source explains them to %.3g (the readings' τ is not the one given)", e.OtherTau, e.OtherTauResidual)
	}
	if !math.IsNaN(e.TwoSourceResidual) && e.TwoSourceResidual <= e.Tol {
		s += fmt.Sprintf("; a fit by two sources explains them to %.3g", e.TwoSourceResidual)
	} else if !math.IsNaN(e.TwoSourceResidual) {
		s += fmt.Sprintf("; the best fit by two sources found leaves %.3g (sensor noise, more sources or another τ)", e.TwoSourceResidual)
	}
	return s
}

// CertifierOptions configure NewCertifier. The zero value means the
// defaults.
type CertifierOptions struct {
	// Tol is the fit tolerance T in (0, 0.5]. Default DefaultFitTolerance.
	Tol float64
	// Progress, when set, is called with the sources done and their total
	// as the pass goes (from several goroutines, in order of completion).
	Progress func(done, total int)
	// Precise runs the pass with the default accuracy of the action
	// (1e−12) at once, not a loose action first.
	Precise bool
	// Shard, for NewCertifierPart, is the share of the pass one process
	// computes (zero: all of it).
	Shard Shard
	// Checkpoint, when set, keeps the pass's finished blocks across runs:
	// the pass skips those it holds and adds each block it finishes.
	Checkpoint PassCheckpoint
	// Started, when set, is called with the pass's modelled cost
	// (EstimatePass) once its action is built, before any block is
	// computed: an estimate of the time it will take can be printed.
	Started func(PassCost)
	// SensorNoise, when > 0, states the sensors' Gaussian noise instead of
	// Tol: each reading's noise independent, mean zero, of standard
	// deviation at most ν times the source's mean reading μ/n. The model's
	// hard bound is widened to ModelNoiseBound(ν, n) (noise of NoiseMargin
	// times ν leaves it with probability ≤ NoiseExitTarget) and
	// NewCertifier uses the smallest T whose model admits that bound
	// (ToleranceFor), from the norms of a first pass at the default T. A
	// sharded pass needs T itself (refused with SensorNoise).
	SensorNoise float64
	// WeakestSignal, with SensorNoise, is min_j‖P·â_j‖ − η of a verified
	// certificate of the same graph and τ at the default T
	// (WeakestSignalOf), when one is at hand: the pass of the norms, which
	// computes that number, is then not run. 0: it runs.
	WeakestSignal float64
	// EdgeTerms, when set, is filled by an unsharded pass with a proven
	// bracket of every edge's Δ2 term (EdgeTerms): the pass's
	// correlations hold them, so Δ2 of the same graph and τ costs little
	// more after it. Each pass (NewCertifier may run two) fills it anew.
	EdgeTerms *EdgeTerms
}

// NewCertifier runs the certificate's one pass over every node j — the
// column â_j and its correlations exp(−τL)·P·â_j with every column (two
// actions, in blocks of 32, parallel inside the action; the second is
// not run for a column that provably keeps no pair) — which gives
// ‖P·a_j‖ and every pair that may be confusable (Classes). It refuses,
// with a *ModelRangeError, a τ at which the action's error or the
// readings' own rounding is not small against the weakest node's source
// signal. tol 0 means DefaultFitTolerance; tol must be in (0, 0.5].
func NewCertifier(ctx context.Context, g *laplacian.Graph, tau float64, opt CertifierOptions) (*Certifier, error) {
	if opt.SensorNoise != 0 {
		return newCertifierForNoise(ctx, g, tau, opt)
	}
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return nil, err
	}
	// The certificate needs the action's error η only small against
	// T·min_j‖P·a_j‖ (checkRange): the loose action (a lower Chebyshev
	// degree) unless a probe of the hubs finds a source too weak for it;
	// a pass that meets one all the same stops there, and the precise
	// pass runs (said, with its estimate, through opt.Started).
	o := opt
	o.Shard = Shard{}
	if !o.Precise {
		if o.Precise, _, err = needsPrecise(g, tau, tol); err != nil {
			return nil, err
		}
	}
	for {
		mode := passStopWeak
		if o.Precise {
			mode = passFull
		}
		part, err := newCertifierPart(ctx, g, tau, o, mode)
		var weak *weakSourceError
		switch {
		case errors.As(err, &weak):
			o.Precise = true
			continue
		case err != nil:
			return nil, err
		}
		c, err := MergeCertifierParts(g, tau, o, []*CertifierPart{part})
		var mre *ModelRangeError
		if !errors.As(err, &mre) || o.Precise {
			return c, err
		}
		o.Precise = true
	}
}

// probeColumns is how many of the strongest hubs needsPrecise probes.
const probeColumns = 8

// needsPrecise reports whether the certificate of g at τ and tol needs
// the precise action, from the columns of the probeColumns nodes of the
// largest degree under the loose one (one action on 8 columns, about
// 1/(8n) of the pass): heat leaves a hub fastest, so its ‖P·a_j‖ is
// the weakest. A probed node too weak for the loose action (by more than
// its rounding: the pass computes the same column bit for bit, or within
// an ulp in a block of one) makes the loose pass fail checkRange for
// certain; a probe that passes decides nothing (the pass checks every
// node). It returns the loose action too: what a pass that does not need
// the precise one runs (EstimatePass reuses it rather than build it
// twice).
func needsPrecise(g *laplacian.Graph, tau, tol float64) (bool, expm.Action, error) {
	act, err := action(g, tau, tol, false)
	if err != nil {
		return false, nil, err
	}
	if _, ok := act.(*expm.Chebyshev); !ok {
		return false, act, nil // dense: the loose action is the precise one
	}
	n := g.N()
	nodes := make([]int, n)
	for j := range nodes {
		nodes[j] = j
	}
	deg := g.Degrees()
	slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(deg[b], deg[a]) })
	nodes = nodes[:min(n, probeColumns)]
	b := len(nodes)
	x, cols := make([]float64, n*b), make([]float64, n*b)
	for k, j := range nodes {
		x[j*b+k] = 1
	}
	act.Apply(cols, x, b)
	c := &Certifier{g: g, act: act, tau: tau, tol: tol, eta: act.ErrorBound()}
	norm := make([]float64, n)
	centeredBlock(cols, n, b, 0, norm, nil)
	for _, v := range norm[:b] {
		if c.tooWeak(v * (1 + 1e-9)) {
			return true, act, nil
		}
	}
	return false, act, nil
}

// newCertifierForNoise is NewCertifier for a stated sensor-noise bound:
// the weakest source signal (the norms of a pass at the default T, within
// its action's error: one action a source, weakestSignal) gives T =
// ToleranceFor(ν), and the pass runs at T.
func newCertifierForNoise(ctx context.Context, g *laplacian.Graph, tau float64, opt CertifierOptions) (*Certifier, error) {
	if !(opt.SensorNoise > 0) || math.IsInf(opt.SensorNoise, 0) {
		return nil, &ModelRangeError{Tau: tau, Tol: math.NaN(), Reason: fmt.Sprintf("the sensor noise must be a finite number > 0, got %g", opt.SensorNoise)}
	}
	nu := ModelNoiseBound(opt.SensorNoise, g.N())
	first := opt
	first.SensorNoise, first.Tol = 0, 0
	lo := opt.WeakestSignal
	if !(lo > 0) {
		var err error
		if lo, err = weakestSignal(ctx, g, tau, first); err != nil {
			return nil, err
		}
	}
	// The pass at T computes the norms again (to within its own action's
	// error): T is chosen for lo less twice that error (toleranceFor), so
	// the model it certifies admits ν at once; T is raised until it does
	// should it fall short all the same.
	var c *Certifier
	for try := 0; try == 0 || (try < 4 && c.NoiseBound() < nu); try++ {
		tol, err := toleranceFor(g, tau, nu, lo)
		var mre *ModelRangeError
		if errors.As(err, &mre) {
			mre.MaxSensorNoise = maxStatedNoise(math.Sqrt(float64(g.N()))*lo, g.N())
			mre.Reason = fmt.Sprintf("Gaussian sensor noise of rms %g of the mean reading (the model widened to %.3g so that 1.5× that rms stays inside but for δ ≤ %g) needs a fit tolerance above 0.5: the weakest source signal √n·min‖P·a_j‖ is %.3g; at this τ the stated sensor noise may be at most %.3g, or use a smaller τ",
				opt.SensorNoise, nu, NoiseExitTarget, math.Sqrt(float64(g.N()))*lo, mre.MaxSensorNoise)
		}
		if err != nil {
			return nil, err
		}
		if c != nil && tol == c.tol {
			break
		}
		first.Tol = tol
		if c, err = NewCertifier(ctx, g, tau, first); err != nil {
			return nil, err
		}
		lo *= c.NoiseBound() / nu * (1 - 1e-6)
	}
	if c.NoiseBound() < nu {
		return nil, &ModelRangeError{Tau: tau, Tol: c.tol, Reason: fmt.Sprintf("no fit tolerance found whose model admits sensor noise %g (a model bound of %g)", opt.SensorNoise, nu)}
	}
	return c, nil
}

// WeakestSignalOf returns min_j‖P·â_j‖ − η of the certificate st on g at
// τ and tol — what weakestSignal computes when tol is the default: the
// same pass's norms, less its action's error — refusing a state of
// another size or fit tolerance.
func WeakestSignalOf(g *laplacian.Graph, tau, tol float64, st CertifierState) (float64, error) {
	if tol == 0 {
		tol = DefaultFitTolerance
	}
	if tol != DefaultFitTolerance || len(st.Norms) != g.N() {
		return 0, &ModelRangeError{Tau: tau, Tol: tol, Reason: fmt.Sprintf("the weakest signal is taken from the certificate at the default fit tolerance %g with one norm a node", DefaultFitTolerance)}
	}
	act, err := action(g, tau, tol, st.Precise)
	if err != nil {
		return 0, err
	}
	return minOf(st.Norms) - act.ErrorBound(), nil
}

// toleranceFor is ToleranceFor(ν, lo − 2η_T): η_T the error of the
// loose action at T (the larger of the two the pass at T may run), found
// by a few steps of the fixed point (η_T grows with T, ≪ lo). The pass
// at T computes norms within η_T of the true ones, which lo bounds from
// below, and its bound subtracts η_T again, so its min‖P·â_j‖ − η_T ≥
// lo − 2η_T and its model admits ν. Without the margin its bound fell a
// hair short and a second whole pass ran, at a T raised by 10⁻⁵–10⁻³ of
// itself: twice the time said (issue 79).
func toleranceFor(g *laplacian.Graph, tau, nu, lo float64) (float64, error) {
	tol, err := ToleranceFor(nu, lo, g.N(), tau)
	for i := 0; err == nil && i < 3; i++ {
		act, aerr := action(g, tau, tol, false)
		if aerr != nil {
			return 0, aerr
		}
		tol, err = ToleranceFor(nu, lo-2*act.ErrorBound(), g.N(), tau)
	}
	return tol, err
}

// weakestSignal returns min_j ‖P·â_j‖ − η of the certificate at opt's
// tolerance (the default): the norms of its pass, the same numbers bit
// for bit (the same action, decided the same way), computed without the
// correlations, and refused as NewCertifier would refuse it for the
// action's error or the readings' rounding.
func weakestSignal(ctx context.Context, g *laplacian.Graph, tau float64, opt CertifierOptions) (float64, error) {
	tol, err := fitTolerance(g, tau, opt.Tol)
	if err != nil {
		return 0, err
	}
	opt.EdgeTerms, opt.Checkpoint = nil, nil
	if !opt.Precise {
		if opt.Precise, _, err = needsPrecise(g, tau, tol); err != nil {
			return 0, err
		}
	}
	for {
		part, err := newCertifierPart(ctx, g, tau, opt, passNorms)
		if err != nil {
			return 0, err
		}
		act, err := action(g, tau, tol, opt.Precise)
		if err != nil {
			return 0, err
		}
		c := &Certifier{g: g, act: act, tau: tau, tol: tol, norm: part.Norms, eta: act.ErrorBound(), precision: tol / 100, precise: opt.Precise}
		if err := c.checkRange(); err == nil || opt.Precise {
			return minOf(c.norm) - c.eta, err
		}
		opt.Precise = true
	}
}

// NoiseDelta returns δ₀ for stated Gaussian sensor noise ν (rms as a
// fraction of the source's mean reading, CertifierOptions.SensorNoise) at
// h times that rms: a proven upper bound on the probability that such
// noise leaves this model (NoiseExitProbability with NoiseBound and
// MaxBackground). The same at every source. 0 for ν = 0.
func (c *Certifier) NoiseDelta(nu, h float64) float64 {
	return NoiseExitProbability(nu, h, c.NoiseBound(), c.maxBackground, c.g.N())
}

// looseActionTol·T is the error of the certifier's first action: enough
// whenever min_j‖P·a_j‖ ≥ 30·looseActionTol (T/10 ≥ 3η/min‖P·a_j‖).
const looseActionTol = 1e-5

// tooWeak reports whether a source of computed norm N_j = norm is too
// weak for the action: its cosines' error 3η/N_j is over T/10.
func (c *Certifier) tooWeak(norm float64) bool {
	return !(norm > 0) || 3*c.eta/norm > c.tol/10
}

// anyTooWeak reports whether any of the norms is tooWeak.
func (c *Certifier) anyTooWeak(norms []float64) bool {
	return slices.ContainsFunc(norms, c.tooWeak)
}

// checkRange refuses a τ whose weakest source signal the action's error
// or the readings' rounding swamps, and sets colErr and maxBackground.
func (c *Certifier) checkRange() error {
	n := c.g.N()
	minNorm := minOf(c.norm)
	c.colErr = 3 * c.eta / minNorm
	c.maxBackground = maxBackground(c.precision, c.tol, minNorm, n)
	switch {
	case c.tooWeak(minNorm):
		return &ModelRangeError{Tau: c.tau, Tol: c.tol, Reason: fmt.Sprintf(
			"the weakest source signal ‖P·exp(−τL)e_s‖ = %.3g (node %s) is not large against the diffusion's certified error %.3g; use a smaller τ",
			minNorm, c.g.Key(worstIndex(c.norm)), c.eta)}
	case !(c.maxBackground >= 0):
		return &ModelRangeError{Tau: c.tau, Tol: c.tol, Reason: fmt.Sprintf(
			"float64 readings of a source at node %s carry only %.3g of source signal against their rounding; use a smaller τ",
			c.g.Key(worstIndex(c.norm)), minNorm)}
	}
	return nil
}

// maxBackground is B, the model's bound on a constant background β as a
// multiple of the source's mass (|β|·n ≤ B·μ), for which no reading inside
// the model — misfit ≤ T, at any source (‖P·a_s‖ ≥ minNorm) — has Fit's
// rounding term ζ above the precision: ζ ≤ 4u(1+T)(1 + 3/√n + 4B/√n)/‖P·a_s‖
// (‖a_s‖₂ ≤ ‖a_s‖₁ = 1), with a factor 3 to spare. Negative: not even
// background-free readings fit (the τ is refused).
func maxBackground(precision, tol, minNorm float64, n int) float64 {
	rn := math.Sqrt(float64(n))
	return (precision/3*minNorm/(4*unitRoundoff*(1+tol)) - 1 - 3/rn) * rn / 4
}

// MaxBackground returns B: readings whose constant background exceeds B
// times the source's mass are outside the model (refused as Precision).
// The bound is on the background summed over the n sensors (n·|β| ≤ B·μ):
// per sensor, |β| ≤ B times the source's mean reading μ/n.
func (c *Certifier) MaxBackground() float64 { return c.maxBackground }

// NoiseBound returns ν, the model's bound on sensor noise: readings
// μ·a_s + β·1 + e with ‖P·e‖ ≤ ν·μ/√n — an rms sensor noise (its mean
// removed) of up to ν times the source's mean reading μ/n — are inside the
// model at every source s:
//
//	ν = T/(1+T) · √n · (min_j ‖P·â_j‖ − η)
//
// (the computed norms are within the action's error η of the true ones),
// rounded down. It depends on the public graph, τ and T only.
func (c *Certifier) NoiseBound() float64 {
	return noiseBound(c.tol, minOf(c.norm)-c.eta, c.g.N())
}

// noiseBound is ν for tolerance T and a lower bound lo on min_j ‖P·a_j‖
// over n nodes, one part in 10⁹ below the float64 result.
func noiseBound(tol, lo float64, n int) float64 {
	return max(0, tol/(1+tol)*math.Sqrt(float64(n))*lo*(1-1e-9))
}

// ToleranceFor returns the smallest fit tolerance T whose model admits
// sensor noise ν (NoiseBound ≥ ν) for a lower bound lo on the weakest
// source signal min_j ‖P·a_j‖ over n nodes: T = ν/(√n·lo − ν), one part in
// 10⁶ above. It refuses (a *ModelRangeError) a ν the weakest source
// cannot carry within T ≤ 0.5.
func ToleranceFor(nu, lo float64, n int, tau float64) (float64, error) {
	if !(nu > 0) || math.IsInf(nu, 0) {
		return 0, &ModelRangeError{Tau: tau, Tol: math.NaN(), Reason: fmt.Sprintf("the sensor-noise bound must be a finite number > 0, got %g", nu)}
	}
	s := math.Sqrt(float64(n)) * lo
	t := nu / (s - nu) * (1 + 1e-6)
	if !(s > nu) || !(t <= 0.5) {
		// Tol is the largest T there is, which still does not admit ν
		// (t itself is negative when ν ≥ s).
		return 0, &ModelRangeError{Tau: tau, Tol: 0.5, Reason: fmt.Sprintf(
			"sensor noise of %g times the mean reading needs a fit tolerance above 0.5: the weakest source signal √n·min‖P·a_j‖ is %.3g; use a smaller τ", nu, s)}
	}
	return t, nil
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

// fitTolerance returns T (0: the default), refusing one outside (0, 0.5]
// and a graph with no source to locate.
func fitTolerance(g *laplacian.Graph, tau, tol float64) (float64, error) {
	if tol == 0 {
		tol = DefaultFitTolerance
	}
	if !(tol > 0 && tol <= 0.5) {
		return 0, &ModelRangeError{Tau: tau, Tol: tol, Reason: "the fit tolerance must be in (0, 0.5]"}
	}
	if g.N() < 2 {
		return 0, &ModelRangeError{Tau: tau, Tol: tol, Reason: "a graph of one node has no source to locate"}
	}
	return tol, nil
}

func worstIndex(v []float64) int {
	w := 0
	for j, x := range v {
		if x < v[w] || math.IsNaN(x) {
			w = j
		}
	}
	return w
}

// readingRounding bounds the float64 error of P·y as computed by Fit
// (Neumaier mean, then y_i − ȳ), for ‖y‖₂ = l2 and Σ|y_i| = l1 over n nodes.
func readingRounding(l2, l1 float64, n int) float64 {
	return 4 * unitRoundoff * (l2 + 3*l1/math.Sqrt(float64(n)))
}

// Tol returns the fit tolerance T.
func (c *Certifier) Tol() float64 { return c.tol }

// SourceFit is the best single-source fit of readings.
type SourceFit struct {
	// Node is the node of the largest cos_j.
	Node int
	// Cos is cos_j of Node; Residual = √(1 − Cos²) its relative misfit.
	Cos, Residual float64
	// Mass μ and Background β of the fit y ≈ μ·a_Node + β·1.
	Mass, Background float64
	// Err bounds the error of every computed cos_j.
	Err float64
}

// acceptCos is the smallest computed cosine Fit accepts for error e.
func (c *Certifier) acceptCos(e float64) float64 {
	return math.Sqrt(1-c.tol*c.tol) - e
}

// Fit returns the best single-source fit of y, or a *MismatchError when y
// is not one source's diffusion within the tolerance. It is a function of
// y, τ and the graph only; cancellation is not checked (one action). It
// measures nothing beyond the fit: Diagnose does, on the operator's
// request.
func (c *Certifier) Fit(y []float64) (SourceFit, error) {
	if len(y) != c.g.N() {
		panic("recovery: Certifier.Fit length mismatch")
	}
	fit, _, err := c.fit(y)
	if err == nil && fit.Cos < c.acceptCos(fit.Err) {
		err = &MismatchError{Residual: fit.Residual, Tol: c.tol, Tau: c.tau, TwoSourceResidual: math.NaN(), OtherTauResidual: math.NaN()}
	}
	return fit, err
}

// Diagnose is Fit for an operator who asks why readings were refused: a
// *MismatchError with every measurement (the best two-source fit, and
// whether another τ explains them), nil when Fit accepts y. Its numbers
// depend on the readings: they are a diagnostic, never published.
func (c *Certifier) Diagnose(y []float64) *MismatchError {
	if len(y) != c.g.N() {
		panic("recovery: Certifier.Diagnose length mismatch")
	}
	fit, cos, err := c.fit(y)
	var mm *MismatchError
	switch {
	case err == nil && fit.Cos >= c.acceptCos(fit.Err):
		return nil
	case errors.As(err, &mm):
		return mm
	}
	y = scaledCopy(y)
	otherTau, otherRes := c.otherTau(y, cos)
	return &MismatchError{Residual: fit.Residual, Tol: c.tol, TwoSourceResidual: c.twoSources(y, cos), Tau: c.tau,
		OtherTau: otherTau, OtherTauResidual: otherRes}
}

// fit computes every cos_j of y and the best one.
func (c *Certifier) fit(y []float64) (SourceFit, []float64, error) {
	fits, cos, errs := c.fitBlock(y, 1)
	return fits[0], cos, errs[0]
}

// fitBlock is fit for the b columns of the row-major n×b block Y at once
// (one action on the block); cos is n×b row-major. A column that cannot
// be fitted gets its *MismatchError in errs.
func (c *Certifier) fitBlock(Y []float64, b int) (fits []SourceFit, cos []float64, errs []error) {
	n := c.g.N()
	P := make([]float64, n*b)
	fits, errs = make([]SourceFit, b), make([]error, b)
	py, zeta, mean, scale := make([]float64, b), make([]float64, b), make([]float64, b), make([]float64, b)
	col := make([]float64, n)
	for k := 0; k < b; k++ {
		// Scaled by a power of two to max |y| ∈ [½, 1): exact, and no
		// square over- or underflows whatever the mass (μ in 1e−250 …
		// 1e250: a fit is scale-invariant).
		for i := range col {
			col[i] = Y[i*b+k]
		}
		scale[k] = scaleToUnit(col)
		p, m, l1 := centered(col)
		sq, l2 := 0.0, 0.0
		for i, v := range p {
			P[i*b+k] = v
			sq += v * v
			l2 += col[i] * col[i]
		}
		py[k], mean[k] = math.Sqrt(sq), m
		l2 = math.Sqrt(l2)
		switch {
		case !(py[k] > 0) || math.IsInf(l2, 0):
			errs[k] = &MismatchError{NoSignal: true, Tol: c.tol, Tau: c.tau, TwoSourceResidual: math.NaN(), OtherTauResidual: math.NaN()}
		default:
			if zeta[k] = readingRounding(l2, l1, n) / py[k]; zeta[k] > c.precision {
				errs[k] = &MismatchError{Precision: true, MaxBackground: c.maxBackground, Tol: c.tol, Tau: c.tau, TwoSourceResidual: math.NaN(), OtherTauResidual: math.NaN()}
			}
		}
	}
	cos = make([]float64, n*b)
	c.correlate(cos, P, b)
	best := make([]int, b)
	for j := 0; j < n; j++ {
		row := cos[j*b : j*b+b]
		for k := range row {
			row[k] /= py[k] * c.norm[j]
			if row[k] > cos[best[k]*b+k] {
				best[k] = j
			}
		}
	}
	for k := 0; k < b; k++ {
		if errs[k] != nil {
			continue
		}
		s := best[k]
		f := SourceFit{Node: s, Cos: cos[s*b+k], Err: 2*zeta[k] + c.colErr}
		if !(f.Cos > 0) {
			errs[k] = &MismatchError{NoSignal: true, Tol: c.tol, Tau: c.tau, TwoSourceResidual: math.NaN(), OtherTauResidual: math.NaN()}
			continue
		}
		cl := math.Min(1, f.Cos)
		f.Residual = math.Sqrt(max(0, 1-cl*cl))
		// μ = ⟨P·y, P·a_s⟩/‖P·a_s‖², β = ȳ − μ/n (a_s sums to 1).
		f.Mass = f.Cos * py[k] / c.norm[s] / scale[k]
		f.Background = (mean[k] - f.Cos*py[k]/c.norm[s]/float64(n)) / scale[k]
		fits[k] = f
	}
	return fits, cos, errs
}

// centered returns y − ȳ, ȳ (by Neumaier summation) and Σ|y_i|.
func centered(y []float64) ([]float64, float64, float64) {
	sum, comp, l1 := 0.0, 0.0, 0.0
	for _, v := range y {
		t := sum + v
		if math.Abs(sum) >= math.Abs(v) {
			comp += (sum - t) + v
		} else {
			comp += (v - t) + sum
		}
		sum = t
		l1 += math.Abs(v)
	}
	mean := (sum + comp) / float64(len(y))
	p := make([]float64, len(y))
	for i, v := range y {
		p[i] = v - mean
	}
	return p, mean, l1
}

// twoSources returns the relative misfit of the best two-source fit found
// by orthogonal matching pursuit from each of the twoSourceStarts nodes of
// the largest single-source cos (a start can be a poor first source when
// the two sources are far apart), with one swap round, then least
// squares on the two centred columns. NaN when it cannot be measured.
func (c *Certifier) twoSources(y, cos []float64) float64 {
	p, _, _ := centered(y)
	yy := dot(p, p)
	best := math.NaN()
	for _, a := range topIndices(cos, twoSourceStarts) {
		b := c.bestAfter(p, a)
		if b < 0 {
			continue
		}
		for _, pair := range [][2]int{{a, b}, {c.bestAfter(p, b), b}} {
			if pair[0] < 0 {
				continue
			}
			if res := c.twoColumnMisfit(p, pair[0], pair[1]); math.IsNaN(best) || res < best {
				best = res
			}
		}
	}
	return math.Sqrt(best / yy)
}

// scaleToUnit scales y in place by a power of two to max |y| ∈ [½, 1)
// (exact) and returns the factor, so that no square over- or underflows.
func scaleToUnit(y []float64) float64 {
	top := 0.0
	for _, v := range y {
		top = math.Max(top, math.Abs(v))
	}
	_, e := math.Frexp(top)
	f := math.Ldexp(1, -e)
	for i := range y {
		y[i] *= f
	}
	return f
}

// scaledCopy returns y scaled as scaleToUnit does, for the diagnostics.
func scaledCopy(y []float64) []float64 {
	out := append([]float64(nil), y...)
	scaleToUnit(out)
	return out
}

// otherTau measures whether another diffusion time explains the readings:
// for τ′ in τ/4, τ/2, 2τ and 4τ, the 8 nodes that fit best at τ are
// fitted at τ′ with their own mass and background (one action a node and
// τ′). It returns the best τ′ and its relative misfit (0, NaN when none
// fits with a positive mass).
func (c *Certifier) otherTau(y, cos []float64) (float64, float64) {
	p, _, _ := centered(y)
	yy := dot(p, p)
	nodes := topIndices(cos, 8)
	bestTau, best := 0.0, math.NaN()
	for _, f := range []float64{0.25, 0.5, 2, 4} {
		act, err := expm.NewAction(c.g, c.tau*f, expm.Options{Columns: len(nodes)})
		if err != nil {
			continue
		}
		e, col := make([]float64, len(y)), make([]float64, len(y))
		for _, j := range nodes {
			clear(e)
			e[j] = 1
			act.Apply(col, e, 1)
			pc, _, _ := centered(col)
			cc, cp := dot(pc, pc), dot(pc, p)
			if !(cc > 0) || !(cp > 0) {
				continue
			}
			if r := math.Sqrt(math.Max(0, yy-cp*cp/cc) / yy); math.IsNaN(best) || r < best {
				bestTau, best = c.tau*f, r
			}
		}
	}
	return bestTau, best
}

// twoSourceStarts is how many first sources twoSources tries.
const twoSourceStarts = 64

// topIndices returns the indices of the k largest values.
func topIndices(v []float64, k int) []int {
	idx := make([]int, 0, k+1)
	for j := range v {
		idx = append(idx, j)
		for i := len(idx) - 1; i > 0 && v[idx[i]] > v[idx[i-1]]; i-- {
			idx[i], idx[i-1] = idx[i-1], idx[i]
		}
		if len(idx) > k {
			idx = idx[:k]
		}
	}
	return idx
}

// bestAfter returns the node j ≠ a that, added to a, leaves the least of
// p (orthogonal matching pursuit: the reduction is ⟨r, P·a_j⟩²/‖q_j‖²,
// q_j the part of P·a_j orthogonal to P·a_a; two actions).
func (c *Certifier) bestAfter(p []float64, a int) int {
	col := c.column(a)
	cc := dot(col, col)
	t := dot(col, p) / cc
	r := make([]float64, len(p))
	for i := range r {
		r[i] = p[i] - t*col[i]
	}
	corr, cross := make([]float64, len(p)), make([]float64, len(p))
	c.correlate(corr, r, 1)
	c.correlate(cross, col, 1)
	best, bestGain := -1, 0.0
	for j := range corr {
		q := c.norm[j]*c.norm[j] - cross[j]*cross[j]/cc
		if j == a || !(q > 0) {
			continue
		}
		if gain := corr[j] * corr[j] / q; best < 0 || gain > bestGain {
			best, bestGain = j, gain
		}
	}
	return best
}

// twoColumnMisfit is ‖p − x₁·P·a_i − x₂·P·a_j‖² at the least-squares x.
func (c *Certifier) twoColumnMisfit(p []float64, i, j int) float64 {
	a, b := c.column(i), c.column(j)
	aa, ab, bb, ay, by := dot(a, a), dot(a, b), dot(b, b), dot(a, p), dot(b, p)
	det := aa*bb - ab*ab
	if !(det > 0) {
		return math.NaN()
	}
	x1, x2 := (ay*bb-by*ab)/det, (by*aa-ay*ab)/det
	res := 0.0
	for k := range p {
		d := p[k] - x1*a[k] - x2*b[k]
		res += d * d
	}
	return res
}

// correlate sets C = Â·X − 1·(1ᵀX)/n for a row-major n×b block X of
// centred vectors: ⟨x, a_k⟩ for every k with the constant part of x's
// rounding removed. The computed centring leaves Σx_i ≠ 0 by a few ulps
// of the readings, and exp(−τL) keeps the constant (A·1 = 1) while it
// shrinks everything else: at large τ that constant would otherwise swamp
// ⟨x, P·a_k⟩ (karate at τ = 30: by 1e-3 of it). What is left of the
// rounding is orthogonal to 1 and bounded by ζ (readingRounding).
func (c *Certifier) correlate(C, X []float64, b int) {
	correlateWith(c.act, C, X, b, nil)
}

// correlateWith is correlate applying act, in w's buffers (nil: its own).
// Each column's mean is centered's, bit for bit (columnMeans).
func correlateWith(act expm.Action, C, X []float64, b int, w *passWorker) {
	n := act.N()
	applyWide(act, C, X, b, w)
	sum, comp, mean := w.acc(b)
	columnMeans(X, n, b, sum, comp, mean)
	for i := 0; i < n; i++ {
		row := C[i*b : i*b+b]
		for k := range row {
			row[k] -= mean[k]
		}
	}
}

// column returns P·â_j.
func (c *Certifier) column(j int) []float64 {
	n := c.g.N()
	e := make([]float64, n)
	e[j] = 1
	a := make([]float64, n)
	c.act.Apply(a, e, 1)
	p, _, _ := centered(a)
	return p
}

// blockSize is how many sources make a block of the pass (the unit of
// shards, checkpoints and progress).
const blockSize = 32

// applyWidth is how many columns the action is applied to at once: the
// block kernel's CPU time a column and step is lowest at 16 on an LFR
// graph of 2·10⁴ nodes (expm's BenchmarkChebyshevBlockWidth: 0.365 ns
// against 0.386 at 32, on 2 shared cores, issue 79).
const applyWidth = 16

// applyWide sets dst = act·x for the row-major n×b block x (in pw's
// buffers when it is not nil), in slices of
// at most applyWidth columns, none of one column unless b is 1: each
// column's numbers are then those of one application to the whole block,
// bit for bit (Chebyshev's block kernel computes every column alike; a
// single column takes another kernel). A dense action is applied whole.
func applyWide(act expm.Action, dst, x []float64, b int, pw *passWorker) {
	if _, ok := act.(*expm.Chebyshev); !ok || b <= applyWidth {
		act.Apply(dst, x, b)
		return
	}
	n := act.N()
	for k0 := 0; k0 < b; {
		w := min(applyWidth, b-k0)
		if b-k0-w == 1 {
			w-- // leave two for the last slice
		}
		var xs, ds []float64
		if pw != nil {
			xs, ds = pw.xs[:n*w], pw.ds[:n*w]
		} else {
			xs, ds = make([]float64, n*w), make([]float64, n*w)
		}
		for i := 0; i < n; i++ {
			copy(xs[i*w:i*w+w], x[i*b+k0:i*b+k0+w])
		}
		act.Apply(ds, xs, w)
		for i := 0; i < n; i++ {
			copy(dst[i*b+k0:i*b+k0+w], ds[i*w:i*w+w])
		}
		k0 += w
	}
}
