package sensitivity

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/cputime"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Result is the L2 sensitivity Δ2 of a diffusion measurement matrix M
// under α-neighbouring sources (EMD ≤ α along the location metric):
//
//	Δ2 = α · max over adjacent locations (i, j) of ‖M_i − M_j‖₂ / d(i, j).
//
// Delta2 is never an estimate: it is the exact value (to Slack, rounded up)
// or a proven upper bound, and Certified says so. Slack is the certified
// width of the bracket: the true Δ2 lies in [Delta2 − Slack, Delta2].
// Kappa2 is informational (not a privacy number): exp(−τL) has
// κ2 = e^{τλ_max}, reported from the dense eigenvalues; the sparse path
// leaves it NaN. Line and matrix use gonum's SVD.
type Result struct {
	Delta2    float64 // rounded up; exact value or certified upper bound
	Certified bool    // true: exact (to stated slack, rounded up) or a proven upper bound
	Exact     bool    // true: Delta2 is the true value to within Slack (dense, or sparse refined to the end); false: only an upper bound (time budget hit)
	Method    string  // "dense-eigen", "chebyshev-columns", "bound-and-refine", "lanczos-edges", "pass-brackets+lanczos", "gram-columns", "slow-modes", "chebyshev-panels", "heat-kernel-1d", "matrix", "no-edges"
	Slack     float64 // certified width: Delta2 − (a proven lower bound on the true value), ≥ 0
	// RelativeSlack is Slack/Delta2. Exact is only claimed when it is at
	// most ExactRelativeSlack; a wider bracket is reported as an upper bound.
	RelativeSlack float64
	Alpha         float64
	Edge          [2]int  // the maximising pair (node indices / location indices); {-1,-1} when there is none
	Kappa2        float64 // condition number κ2(M) (+Inf when singular); NaN when not computed (too large)
	Nodes         int     // locations (graph nodes, line source points, matrix columns)
	Edges         int     // adjacent pairs considered (graph edges, n−1 on the line, declared pairs)
	Components    int     // connected components of the adjacency

	// Set by the sharded computation (GraphShard, shard.go) only.
	share    share   // how this result relates to a sharded computation
	lower    float64 // divided: a proven lower bound on Δ2 of the whole graph (not only this shard's edges)
	complete bool    // divided: every edge of the shard settled (Exact before honestExact)
}

// Options tune Graph. The zero value means the defaults.
type Options struct {
	// Method selects the algorithm. Default expm.Auto: the dense
	// eigendecomposition when it is cheaper than the sparse column scheme
	// (and n ≤ DenseLimit), else the sparse scheme. expm.Dense forces the
	// dense path (n ≤ DenseLimit, else ErrTooLarge); expm.Sparse forces the
	// sparse path, whose algorithm Scheme selects.
	Method expm.Method
	// Scheme selects the sparse path's algorithm. Default SchemeAuto.
	Scheme Scheme
	// DenseLimit is the largest n for which the dense eigendecomposition is
	// allowed (it needs ~4n² float64s). Default 2500; negative disables the
	// dense method.
	DenseLimit int
	// Tol bounds the Chebyshev truncation error ‖exp(−2τL) − p_K(L)‖₂ on
	// the sparse path. Default 1e-12.
	Tol float64
	// Progress, when non-nil, is called with (done, total) units of work
	// (column blocks on the sparse path). It must be cheap.
	Progress func(done, total int)
	// Status, when non-nil, is called with the anytime state of the sparse
	// path after its bound phase and after every column block (and once by
	// the dense path when it finishes). It must be cheap.
	Status func(Interim)
	// TimeBudget stops the sparse path's refinement after this long and
	// returns the certified upper bound reached so far (Exact = false). A
	// column block running at the deadline is abandoned (and one expected
	// to end too late is not started); Lanczos recurrences stop with their
	// brackets so far; the per-edge bound phase always runs (about a
	// minute at 10⁷ edges). The slow-modes method (which has no bracket
	// until it ends) gets half of it under Auto and all of it when forced;
	// stopped, it hands what is left to the sparse path, whose anytime
	// bound is returned. Default 0: run until Δ2 is known to the slack of
	// the method.
	TimeBudget time.Duration
	// Done, when not nil, stops the computation once closed (a context's
	// Done channel): Graph then returns ErrStopped. The sparse schemes
	// poll it in their loops (cutoff: the cheap bounds, every few kernel
	// steps of a column block, every Lanczos step) and the slow modes
	// between filter steps and factorization blocks; the dense
	// eigendecomposition cannot be interrupted, so callers that must
	// return at once run Graph in a goroutine as well.
	Done <-chan struct{}
	// Known, when set, brackets every edge's term q_e at this τ from work
	// done elsewhere (a certifier pass's correlations,
	// recovery.EdgeTerms.Bracket). Under Auto, where the brackets leave
	// few edges near the top, Δ2 then starts from them instead of its
	// own bounds and refines only those edges by Lanczos (Method
	// "pass-brackets+lanczos"); otherwise they are not used.
	Known KnownTerms

	// shard restricts the sparse schemes to a share of the edges (GraphShard);
	// unexported so that no caller of Graph mistakes a shard's partial
	// maximum for Δ2.
	shard shardSpec
}

// KnownTerms returns proven bounds lo ≤ q_ij ≤ up on the term
// q_ij = ‖exp(−τL)(e_i − e_j)‖² of the edge (i, j); ok is false when it
// has none for that edge.
type KnownTerms func(i, j int) (lo, up float64, ok bool)

// ErrStopped is returned by Graph when Options.Done was
// closed before the computation ended.
var ErrStopped = errors.New("sensitivity: sensitivity computation stopped")

// stopFunc reports whether done is closed; a nil done never is.
func stopFunc(done <-chan struct{}) func() bool {
	return func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

// Scheme is the algorithm of the sparse path.
type Scheme int

const (
	// SchemeAuto chooses Lanczos edge brackets when the certified
	// Chebyshev degree is high, or on graphs with hubs when its modelled
	// time is smaller (sparsePlan), and only when its Krylov vectors fit;
	// Chebyshev columns otherwise.
	SchemeAuto Scheme = iota
	// SchemeColumns computes Chebyshev columns of exp(−2τL) with
	// bound-and-refine pruning (sparseGraphSensitivity).
	SchemeColumns
	// SchemeLanczos brackets each edge class by Lanczos with a rigorous
	// a-posteriori bound (lanczosGraphSensitivity).
	SchemeLanczos
	// SchemeSlowModes certifies the slow eigenpairs of L and bounds the
	// rest by e^{−τμ} (slowModesGraphSensitivity): exact at large τ, where
	// Δ2 is tiny, on graphs of at most 5 000 nodes.
	SchemeSlowModes
	// SchemePanels computes all n columns of a Chebyshev polynomial of L
	// in panels of 16, shifted by a certified lower bound on λ₂ at large
	// τλ₂ (panelGraphSensitivity): exact at any τ on graphs of at most
	// 5 000 nodes unless Δ2 is far below e^{−τλ₂}.
	SchemePanels
	// SchemeGram computes every column of exp(−2τL) with expm's action,
	// 32 at a time, and reads each edge's term off three entries
	// (gramGraphSensitivity): exact, at a cost that does not depend on
	// the edges' order or bounds.
	SchemeGram
)

// lanczosMinSteps is the fewest Lanczos steps per edge the memory must
// allow for the Lanczos scheme.
const lanczosMinSteps = 64

// Interim is the anytime state of a Δ2 computation so far: Delta2 is
// already a proven upper bound (what a stop now would return), and
// EdgesCertified counts the edges whose term is settled (computed, or
// bounded below the best proven lower bound of the maximum). ETA is the
// scheme's guess of the time left (remainingTime, smoothed by
// etaSmoother so that it counts down steadily), 0 while it has none;
// it is never a bound.
type Interim struct {
	Edges          int
	EdgesCertified int
	Delta2         float64
	Elapsed        time.Duration
	ETA            time.Duration
}

// remainingTime guesses the time left from the work refined so far (done
// units in spent) and the units still above the running lower bound
// (left). Most edges of a large graph are settled by their cheap bounds
// the moment the lower bound rises, so the count of certified edges races
// ahead of the work (on the PGP web of trust at τ = 1, 97 % after 60 s of
// a 140 s run); what is left is the refinement of the candidates, at
// about the rate so far. It returns
// 0 (no guess) until a few units are done, and never less than 1 ms while
// units are left, so that 0 keeps meaning "no guess".
func remainingTime(spent time.Duration, done, left int) time.Duration {
	if done < 8 || spent <= 0 || left <= 0 {
		return 0
	}
	return max(time.Millisecond, time.Duration(float64(spent)/float64(done)*float64(left)))
}

// ParamError reports an invalid sensitivity parameter.
type ParamError struct {
	Name   string
	Value  float64
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("sensitivity: invalid %s = %v: %s", e.Name, e.Value, e.Reason)
}

// PairError reports an invalid declared adjacent location pair.
type PairError struct {
	Index    int // position in the pairs slice
	I, J     int
	Distance float64
	Reason   string
}

func (e *PairError) Error() string {
	return fmt.Sprintf("sensitivity: invalid location pair %d (%d, %d, distance %v): %s", e.Index, e.I, e.J, e.Distance, e.Reason)
}

// ErrNotConnected is returned by Matrix when the declared pairs
// leave some location unreachable: a neighbouring move through it would be
// unaccounted for, so no Δ2 can be certified.
var ErrNotConnected = errors.New("sensitivity: declared location pairs do not connect every location")

// ErrTooLarge is returned when the dense method is forced on a graph larger
// than Options.DenseLimit.
var ErrTooLarge = errors.New("sensitivity: graph too large for the dense method")

// unit roundoff of float64.
const roundoffU = 0x1p-53

// checkPositive validates a finite, strictly positive parameter.
func checkPositive(name string, v float64) error {
	switch {
	case math.IsNaN(v):
		return &ParamError{name, v, "must be a number"}
	case math.IsInf(v, 0):
		return &ParamError{name, v, "must be finite"}
	case v <= 0:
		return &ParamError{name, v, "must be > 0"}
	}
	return nil
}

// roundUpDelta returns a float64 ≥ x(1+4u): a safe upward rounding of a value
// that carries a few rounding errors already accounted for elsewhere.
func roundUpDelta(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Nextafter(x*(1+4*roundoffU), math.Inf(1))
}

// roundDownDelta is the lower-bound counterpart of roundUpDelta (never below 0).
func roundDownDelta(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Max(0, math.Nextafter(x*(1-4*roundoffU), 0))
}

// Graph returns Δ2 of the heat-diffusion measurement
// M = exp(−τL) on g under the hop metric (every edge has length 1; edge
// weights change L, not the metric):
//
//	Δ2 = α · max over edges (i,j) ‖exp(−τL)(e_i − e_j)‖₂,
//	‖exp(−τL)(e_i − e_j)‖² = C_ii + C_jj − 2C_ij,  C = exp(−2τL).
//
// A disconnected graph is allowed: an edge joins nodes of one component, so
// the formula holds unchanged; Components reports the count. A graph without
// edges has Δ2 = 0 (no source can move). See Options for the methods.
// Its progress ends when it returns (endingProgress): done when Δ2 is
// known, even if pruning left column blocks unrun.
func Graph(g *laplacian.Graph, tau, alpha float64, opt Options) (Result, error) {
	var end func(ok bool)
	opt.Progress, end = endingProgress(opt.Progress)
	r, err := graph(g, tau, alpha, opt)
	end(err == nil)
	return r, err
}

// graph is Graph without closing its progress.
func graph(g *laplacian.Graph, tau, alpha float64, opt Options) (Result, error) {
	if g == nil || g.N() == 0 {
		return Result{}, laplacian.ErrEmptyGraph
	}
	if err := checkPositive("tau", tau); err != nil {
		return Result{}, err
	}
	if err := checkPositive("alpha", alpha); err != nil {
		return Result{}, err
	}
	opt = opt.withDefaults()
	if err := checkPositive("tol", opt.Tol); err != nil {
		return Result{}, err
	}
	if opt.TimeBudget < 0 {
		return Result{}, &ParamError{"time-budget", opt.TimeBudget.Seconds(), "must be ≥ 0"}
	}
	comps, _ := g.Components()
	base := Result{
		Certified:  true,
		Alpha:      alpha,
		Edge:       [2]int{-1, -1},
		Nodes:      g.N(),
		Edges:      g.NumEdges(),
		Components: comps,
	}
	if g.NumEdges() == 0 {
		if opt.shard.idle() {
			return shardEmpty(base), nil
		}
		base.share = opt.shard.whole()
		base.Exact = true
		base.Method = "no-edges"
		base.Kappa2 = 1 // exp(−τ·0) = I
		return base, nil
	}
	method, scheme := opt.Method, opt.Scheme
	stop := stopFunc(opt.Done)
	if knownPays(g, opt) {
		base.share = opt.shard.whole()
		s := lanczosGraphSensitivity(g, tau, alpha, opt, base)
		if stop() {
			return Result{}, ErrStopped
		}
		return honestExact(s), nil
	}
	opt.Known = nil
	if s, done, err := exactAnyTau(g, tau, alpha, base, &opt, &method, &scheme, stop); done {
		return s, err
	}
	switch method {
	case expm.Auto:
		method = expm.Sparse // the plan's choice above the dense limit, without its models' cost
		if g.N() <= opt.DenseLimit {
			p := ChooseMethod(g, tau, opt)
			method, scheme = p.Method, p.Scheme
		}
	case expm.Dense:
		if g.N() > opt.DenseLimit {
			return Result{}, fmt.Errorf("%w: n = %d > dense limit %d", ErrTooLarge, g.N(), opt.DenseLimit)
		}
	case expm.Sparse:
	default:
		return Result{}, &ParamError{"method", float64(method), "unknown method"}
	}
	if method == expm.Sparse {
		scheme = sparseScheme(g, tau, opt)
		if gramEligible(g, tau, opt, scheme) && sparsePlan(g, tau, opt).scheme == SchemeGram {
			scheme = SchemeGram
		}
	}
	var s Result
	var err error
	switch {
	case method == expm.Dense:
		if opt.shard.idle() {
			return shardEmpty(base), nil
		}
		s, err = denseGraphSensitivity(g, tau, alpha, base)
		s.share = opt.shard.whole()
	case scheme == SchemeGram:
		if opt.shard.idle() {
			return shardEmpty(base), nil
		}
		base.share = opt.shard.whole()
		var ok bool
		if s, ok = gramGraphSensitivity(g, tau, alpha, opt, base, stop); !ok && !stop() {
			return Result{}, fmt.Errorf("sensitivity: the Gram scheme cannot build exp(−2τL) at τ = %g to %g", tau, opt.Tol)
		}
	case scheme == SchemeLanczos:
		if !lanczosFits(g) {
			return Result{}, fmt.Errorf("%w: the Lanczos scheme needs %d·n float64s per worker", ErrTooLarge, (lanczosMinSteps+1)*columnBlock)
		}
		s = inLocalOrder(g, func(h *laplacian.Graph) Result { return lanczosGraphSensitivity(h, tau, alpha, opt, base) })
	default:
		s = inLocalOrder(g, func(h *laplacian.Graph) Result { return sparseGraphSensitivity(h, tau, alpha, opt, base) })
	}
	if method != expm.Dense && scheme != SchemeGram {
		s.share = opt.shard.divided()
	}
	if err == nil && stop() {
		return Result{}, ErrStopped
	}
	return honestExact(s), err
}

// knownPays reports whether Graph starts from opt.Known: under Auto,
// unsharded, where the Lanczos scheme fits, with a bracket for every edge
// and at most knownNearTop of them (or 1 %) reaching the largest lower
// bound — the edges Lanczos would refine.
func knownPays(g *laplacian.Graph, opt Options) bool {
	if opt.Known == nil || opt.Method != expm.Auto || opt.Scheme != SchemeAuto || opt.shard.sharded() || !lanczosFits(g) {
		return false
	}
	var ups []float64
	floor, all := 0.0, true
	g.ForEachEdge(func(i, j int, _ float64) {
		lo, up, ok := opt.Known(i, j)
		all = all && ok
		floor = math.Max(floor, lo)
		ups = append(ups, up)
	})
	if !all || !(floor > 0) {
		return false
	}
	near := 0
	for _, up := range ups {
		if up >= floor {
			near++
		}
	}
	return near <= max(knownNearTop, len(ups)/100)
}

// knownNearTop is how many edges near the top knownPays always accepts.
const knownNearTop = 256

// exactAnyTau runs the methods exact at any τ: forced (panels, slow
// modes), or under Auto where Δ2 may be tiny (tinyDelta2): the slow modes
// when few are needed and they are modelled faster than the panels, else
// the panels (docs/derivations.md §2.9). done reports that s, err is the
// answer; otherwise opt, method and scheme say what runs next (the
// sparse path's anytime bound, with what is left of a time budget).
func exactAnyTau(g *laplacian.Graph, tau, alpha float64, base Result, opt *Options, method *expm.Method, scheme *Scheme, stop func() bool) (Result, bool, error) {
	if *scheme == SchemePanels {
		if opt.shard.idle() {
			return shardEmpty(base), true, nil
		}
		base.share = opt.shard.whole()
		if g.N() > panelsLimit {
			return Result{}, true, fmt.Errorf("%w: the panels method takes at most %d nodes", ErrTooLarge, panelsLimit)
		}
		s, ok := panelGraphSensitivity(g, tau, alpha, base, stop)
		if stop() || !ok {
			return Result{}, true, ErrStopped
		}
		return honestExact(s), true, nil
	}
	if *method == expm.Auto && *scheme == SchemeAuto && tinyDelta2(g, tau, *opt) {
		if opt.shard.idle() {
			return shardEmpty(base), true, nil
		}
		base.share = opt.shard.whole()
		if s, ok := autoExact(g, tau, alpha, base, opt, stop); ok || stop() {
			if stop() {
				return Result{}, true, ErrStopped
			}
			return s, true, nil
		}
		*method = expm.Sparse // a time budget the panels do not fit: the sparse path's anytime bound
	}
	if *scheme == SchemeSlowModes {
		if opt.shard.idle() {
			return shardEmpty(base), true, nil
		}
		base.share = opt.shard.whole()
		start := time.Now()
		s, ok := slowModesGraphSensitivity(g, tau, alpha, base, slowModesMaxBlock, budgetStop(stop, start, slowModesBudget(opt.TimeBudget, *scheme)))
		if stop() {
			return Result{}, true, ErrStopped
		}
		if ok {
			return honestExact(s), true, nil
		}
		if opt.TimeBudget <= 0 || time.Since(start) < opt.TimeBudget {
			return Result{}, true, fmt.Errorf("%w: the slow-modes method takes at most %d nodes and %d modes below λ₂ + 25/τ", ErrTooLarge, slowModesLimit, slowModesMaxBlock)
		}
		// The budget ran out: the sparse path's anytime bound, at once.
		opt.TimeBudget = time.Millisecond
		*method, *scheme = expm.Sparse, SchemeAuto
	}
	return Result{}, false, nil
}

// autoExact is Auto's slow modes or panels (exactAnyTau); ok = false when
// neither ran to the end (stopped, or a time budget they do not fit, whose
// rest opt then holds).
func autoExact(g *laplacian.Graph, tau, alpha float64, base Result, opt *Options, stop func() bool) (Result, bool) {
	ch := choosePanels(g, tau, stop)
	if stop() || !(opt.TimeBudget == 0 || ch.panels.seconds <= opt.TimeBudget.Seconds() || ch.slowFirst) {
		return Result{}, false
	}
	start := time.Now()
	if ch.slowFirst {
		s, ok := slowModesGraphSensitivity(g, tau, alpha, base, slowModesAutoBlock, budgetStop(stop, start, slowModesBudget(opt.TimeBudget, SchemeAuto)))
		if ok || stop() {
			return honestExact(s), ok
		}
	}
	if opt.TimeBudget == 0 || time.Since(start).Seconds()+ch.panels.seconds <= opt.TimeBudget.Seconds() {
		s, ok := panelGraphSensitivity(g, tau, alpha, base, stop)
		if ok || stop() {
			return honestExact(s), ok
		}
	}
	if opt.TimeBudget > 0 {
		opt.TimeBudget = max(opt.TimeBudget-time.Since(start), time.Millisecond)
	}
	return Result{}, false
}

// slowModesBudget is the share of a time budget (0 = none) the slow-modes
// attempt may use: all of it when the method is forced, half under Auto,
// which keeps the rest for the planned method's anytime bound.
func slowModesBudget(budget time.Duration, scheme Scheme) time.Duration {
	if budget <= 0 || scheme == SchemeSlowModes {
		return budget
	}
	return budget / 2
}

// budgetStop is stop that also fires budget after start (budget 0: never).
func budgetStop(stop func() bool, start time.Time, budget time.Duration) func() bool {
	if budget <= 0 {
		return stop
	}
	deadline := start.Add(budget)
	return func() bool { return stop() || time.Now().After(deadline) }
}

// inLocalOrder runs a sparse scheme on g renumbered in Cuthill–McKee order
// and maps the maximising edge back. Δ2 does not depend on the numbering,
// but the block kernels' speed does: neighbours' rows are then near each
// other in memory (measured on a 10⁶-node random geometric graph, whose
// generator numbers nodes at random: a kernel step 11× faster; the AS
// graph at τ = 10: 14 % faster; preferential attachment: no change).
func inLocalOrder(g *laplacian.Graph, run func(*laplacian.Graph) Result) Result {
	perm := g.CuthillMcKee()
	s := run(g.Permute(perm))
	if s.Edge[0] >= 0 {
		s.Edge = [2]int{int(perm[s.Edge[0]]), int(perm[s.Edge[1]])}
	}
	return s
}

// tinyDelta2 reports whether Auto takes the exact-at-any-τ methods (slow
// modes, panels) on g: on graphs of 301–5 000 nodes where the Jensen floor
// does not prove Δ2 ≥ 10⁻³·… (it is below 10⁻⁶), so Δ2 may be so small
// that the sparse schemes' absolute error terms exceed it. Up to 300
// nodes the dense method stays. A negative DenseLimit (dense disabled)
// keeps the sparse path, as before.
func tinyDelta2(g *laplacian.Graph, tau float64, opt Options) bool {
	return g.N() > 300 && g.N() <= panelsLimit && opt.DenseLimit >= 0 && jensenFloor(g, tau) < 1e-6
}

// denseSeconds models the dense method's time on the 2-core reference
// machine: 1.5 s·(n/1000)^3.6.
func denseSeconds(n int) float64 { return 1.5 * math.Pow(float64(n)/1000, 3.6) }

// ExactRelativeSlack is the widest certified bracket, relative to Δ2, that
// is still called exact.
const ExactRelativeSlack = 1e-6

// honestExact sets RelativeSlack and withdraws the claim Exact when the
// certified bracket is wider than ExactRelativeSlack of Δ2 (a bound whose
// slack is as large as the value is an upper bound, not the value).
func honestExact(s Result) Result {
	if s.Delta2 > 0 {
		s.RelativeSlack = s.Slack / s.Delta2
	}
	if s.RelativeSlack > ExactRelativeSlack {
		s.Exact = false
	}
	return s
}

// MethodChoice is how Graph will compute Δ2 on a graph and
// what that is modelled to cost. It is the one cost model: the dry run
// reports it and Graph's Auto method follows it.
type MethodChoice struct {
	Method  expm.Method // expm.Dense or expm.Sparse
	Scheme  Scheme      // the sparse algorithm (SchemeColumns or SchemeLanczos) when Method is expm.Sparse
	Seconds float64     // modelled time on the 2-core reference machine
	Bytes   int64       // modelled peak memory of the computation
	// SlowModesFirst: under Auto the slow-modes method (Scheme) runs first
	// and the panels follow when it needs more than 256 modes; Seconds and
	// Bytes model the slow modes.
	SlowModesFirst bool
}

// Name is the plan's method as the CLI and reports name it: "dense",
// "columns", "lanczos", "panels" or "slow-modes".
func (p MethodChoice) Name() string {
	switch {
	case p.Method == expm.Dense:
		return "dense"
	case p.Scheme == SchemeLanczos:
		return "lanczos"
	case p.Scheme == SchemePanels:
		return "panels"
	case p.Scheme == SchemeSlowModes:
		return "slow-modes"
	case p.Scheme == SchemeGram:
		return "gram"
	}
	return "columns"
}

// ChooseMethod chooses the method Graph uses (under
// opt.Method == expm.Auto; a forced method is planned as given), from rough cost models measured on the 2-core
// reference machine: gonum's EigenSym with vectors costs about
// 1.5 s·(n/1000)^3.6 and 4n² float64s; the sparse schemes as sparsePlan
// models them. Dense is chosen for n ≤ 300, and up to opt.DenseLimit when
// it is modelled cheaper — by sparsePlan's fixed model, so that the
// choice never depends on how busy the machine is while the dry run times
// its bounds. Zero options mean the defaults of Graph.
func ChooseMethod(g *laplacian.Graph, tau float64, opt Options) MethodChoice {
	opt = opt.withDefaults()
	if opt.Method == expm.Auto && opt.Scheme == SchemeAuto && tinyDelta2(g, tau, opt) {
		ch := choosePanels(g, tau, func() bool { return false })
		if opt.TimeBudget == 0 || ch.panels.seconds <= opt.TimeBudget.Seconds() || ch.slowFirst {
			if ch.slowFirst {
				return MethodChoice{Method: expm.Sparse, Scheme: SchemeSlowModes, Seconds: ch.slowSeconds, Bytes: ch.slowBytes, SlowModesFirst: true}
			}
			return MethodChoice{Method: expm.Sparse, Scheme: SchemePanels, Seconds: ch.panels.seconds, Bytes: ch.panels.bytes}
		}
		opt.Method = expm.Sparse
	}
	switch opt.Scheme {
	case SchemePanels:
		c := planPanels(g, tau)
		return MethodChoice{Method: expm.Sparse, Scheme: SchemePanels, Seconds: c.seconds, Bytes: c.bytes}
	case SchemeSlowModes:
		ch := choosePanels(g, tau, func() bool { return false })
		return MethodChoice{Method: expm.Sparse, Scheme: SchemeSlowModes, Seconds: ch.slowSeconds, Bytes: ch.slowBytes}
	case SchemeGram:
		secs, bytes, _ := gramCost(g, tau, opt.Tol)
		return MethodChoice{Method: expm.Sparse, Scheme: SchemeGram, Seconds: secs, Bytes: bytes}
	}
	return planGraphSensitivity(g, tau, opt)
}

// FirstGuess is a guess at what a dry run's Δ2 costs on a graph, made
// before any of ChooseMethod's measurements (GuessFirst): for a first
// estimate of long work, told before ChooseMethod's own seconds.
type FirstGuess struct {
	// ModelSeconds guesses ChooseMethod's own time on the sparse path:
	// its bounds on every edge, its pilot (at most pilotTime) and its
	// timings — 0.5–1.9 s on graphs of 5·10⁴–2·10⁵ edges on the 2-core
	// reference machine, modelFixedSeconds + modelEdgeSeconds·|E|.
	ModelSeconds float64
	// Seconds is Δ2's modelled time where it needs no pilot (Modelled:
	// the dense eigendecomposition, or the Gram scheme where Auto weighs
	// it, ≥ 20 s); otherwise 0.
	Seconds  float64
	Modelled bool
}

// Fitted on e-mail Enron, pgp, LFR 2·10⁴, cond-mat-2005, astro-ph and AS
// at τ = 1 (docs/results.md, "Δ2's cost model in 1.6 s"): within 1.45× of
// each.
const (
	modelFixedSeconds = 0.2
	modelEdgeSeconds  = 6.5e-6
)

// GuessFirst guesses (FirstGuess) what Δ2 costs on g at τ with opt, from
// counts and cheap models only (no bound, pilot or timing): milliseconds.
func GuessFirst(g *laplacian.Graph, tau float64, opt Options) FirstGuess {
	opt = opt.withDefaults()
	if g.N() <= opt.DenseLimit && (g.N() <= 300 || opt.Method == expm.Dense) || g.NumEdges() == 0 {
		return FirstGuess{Seconds: denseSeconds(g.N()), Modelled: true}
	}
	f := FirstGuess{ModelSeconds: modelFixedSeconds + modelEdgeSeconds*float64(g.NumEdges())}
	if gramEligible(g, tau, opt, sparseScheme(g, tau, opt)) {
		f.Seconds, _, _ = gramCost(g, tau, opt.Tol)
		f.Modelled = true
	}
	return f
}

func planGraphSensitivity(g *laplacian.Graph, tau float64, opt Options) MethodChoice {
	n := float64(g.N())
	dense := denseSeconds(g.N())
	denseOK := g.N() <= opt.DenseLimit && opt.Method != expm.Sparse
	if denseOK && (g.N() <= 300 || opt.Method == expm.Dense) {
		return MethodChoice{Method: expm.Dense, Seconds: dense, Bytes: int64(4*8*n*n) + g.Bytes()}
	}
	sp := sparsePlan(g, tau, opt)
	if denseOK && dense < sp.fixed {
		return MethodChoice{Method: expm.Dense, Seconds: dense, Bytes: int64(4*8*n*n) + g.Bytes()}
	}
	return MethodChoice{Method: expm.Sparse, Scheme: sp.scheme, Seconds: sp.seconds, Bytes: sp.bytes}
}

// lanczosMinDegree is the Chebyshev degree from which SchemeAuto prefers
// Lanczos (when it fits) on any graph, and lanczosHubRatio the ratio of the
// largest to the mean weighted degree from which it prefers it at any
// degree.
const (
	lanczosMinDegree = 96
	lanczosHubRatio  = 20
)

// sparseScheme resolves opt.Scheme. SchemeAuto takes Lanczos when it fits
// (lanczosFits) and either the Chebyshev degree K is at least
// lanczosMinDegree (measured: the AS graph from τ = 0.1), or the graph has
// hubs (e-mail Enron at τ = 0.1: 2.5 s against 23 s for the columns), or
// it is small-world at this K (smallWorld: a column block then costs whole-
// graph steps while the brackets stop early; cond-mat at τ = 1: 0.64 s
// against 2.9 s, a two-block SBM of 10⁴ nodes 0.77 s against 7.8 s);
// otherwise the columns, whose balls and three-node Radau bounds pay on
// meshes (a 200×200 grid: 0.40 s against 1.9 s for Lanczos). The rule
// reads degrees and a few breadth-first searches, so the run and its dry
// run agree without paying for a model. opt must have its defaults.
func sparseScheme(g *laplacian.Graph, tau float64, opt Options) Scheme {
	if opt.Scheme != SchemeAuto {
		return opt.Scheme
	}
	n := float64(g.N())
	mean := 0.0
	for _, d := range g.Degrees() {
		mean += d / n
	}
	hubs := g.MaxDegree() >= lanczosHubRatio*mean
	K := chebDegree(tau*expm.LambdaMaxBound(g), opt.Tol)
	if lanczosFits(g) && (K >= lanczosMinDegree || hubs || smallWorld(g, K)) {
		return SchemeLanczos
	}
	return SchemeColumns
}

// smallWorld reports whether the K-hop balls of at least two of four
// spread-out nodes (0, n/4, n/2, 3n/4) hold more than half of the graph's
// nodes. Two, not three: a graph whose largest component is most of it
// (hep-th, astro-ph) may have a start or two outside that component.
func smallWorld(g *laplacian.Graph, K int) bool {
	if K < 1 || g.N() == 0 {
		return false
	}
	n := g.N()
	b := newBall(g)
	full := 0
	for q := range 4 {
		b.reset()
		b.add(int32(q * n / 4))
		for k := 0; k < K && !b.full && len(b.front) > 0; k++ {
			b.grow()
		}
		if b.full {
			full++
		}
		b.clearRows()
	}
	return full >= 2
}

// sparsePlan is the sparse path's plan: the per-edge scheme
// (perEdgePlan), or the Gram scheme where it is eligible (gramEligible)
// and modelled at most gramPreference of the per-edge scheme's time. Graph
// and its dry run (ChooseMethod) both choose by it.
func sparsePlan(g *laplacian.Graph, tau float64, opt Options) sparseCost {
	c := perEdgePlan(g, tau, opt)
	if !gramEligible(g, tau, opt, c.scheme) {
		return c
	}
	if secs, bytes, ok := gramCost(g, tau, opt.Tol); ok && secs < gramPreference*c.seconds {
		return sparseCost{scheme: SchemeGram, seconds: secs, fixed: secs, bytes: bytes}
	}
	return c
}

// gramPreference: the Gram scheme is chosen when modelled below this
// share of the per-edge scheme's time (the two models' errors differ).
const gramPreference = 0.8

// gramEligible says whether Auto weighs the Gram scheme against the
// per-edge one: unsharded, without a time budget (the Gram scheme has no
// anytime bracket), where the rule picked Lanczos (LFR 2·10⁴ at τ = 1:
// long recurrences on every edge), on a graph whose largest degree is
// under gramHubRatio times the mean (hubs raise λ_max and with it the
// Gram scheme's degree, while the Lanczos brackets of a hub's edges stop
// early: e-mail Enron, ratio 138, Lanczos 6 s, the Gram scheme modelled at
// 12 min), and where the Gram scheme is modelled between gramMinSeconds
// and gramMaxSeconds — so the per-edge model's pilot (a few seconds) is
// paid only where it is small against the run and the Gram scheme may win.
func gramEligible(g *laplacian.Graph, tau float64, opt Options, scheme Scheme) bool {
	if opt.Scheme != SchemeAuto || opt.TimeBudget > 0 || opt.shard.sharded() || scheme != SchemeLanczos {
		return false
	}
	n := float64(g.N())
	mean := 0.0
	for _, d := range g.Degrees() {
		mean += d / n
	}
	if g.MaxDegree() >= gramHubRatio*mean {
		return false
	}
	secs, _, ok := gramCost(g, tau, opt.Tol)
	return ok && secs >= gramMinSeconds && secs <= gramMaxSeconds
}

// gramHubRatio is the largest-to-mean degree ratio from which Auto leaves
// the Gram scheme out (LFR 2·10⁴: 21, where it wins 1.6×; e-mail Enron:
// 138, where Lanczos wins by two orders).
const gramHubRatio = 60

// gramMinSeconds and gramMaxSeconds bound the Gram scheme's modelled time
// for Auto to consider it (20 s to half an hour on the reference machine).
const (
	gramMinSeconds = 20
	gramMaxSeconds = 1800
)

// perEdgePlan is the per-edge sparse scheme (sparseScheme) with its modelled time and
// memory on the 2-core reference machine (docs/derivations.md §2.3). The
// parts that vary most between graphs are measured, not modelled: the
// cheap bounds (and the columns' Radau bounds) are timed on the edges, or
// on a sample of them, and a short pilot of the Lanczos brackets gives the
// lower bound on max q_e that decides how much is refined
// (modelRefinement), and a column block costs K+1 timed kernel steps
// (kernelStepSeconds), K the certified Chebyshev degree for τ·λmax-bound
// at tolerance opt.Tol. A recurrence step of the Lanczos scheme costs
// lanczosEntrySecs per stored entry of the twin quotient and
// lanczosRowSecs per row, its steps counted on a sample of the refined
// classes and from the pilot (lanczosSlotSteps). opt must have its
// defaults.
func perEdgePlan(g *laplacian.Graph, tau float64, opt Options) sparseCost {
	g = g.Permute(g.CuthillMcKee()) // as the run orders it (inLocalOrder)
	n := float64(g.N())
	m := float64(g.NumEdges())
	nnz := 2 * m
	B := expm.LambdaMaxBound(g)
	K := chebDegree(tau*B, opt.Tol)
	scheme := sparseScheme(g, tau, opt)
	rm := modelRefinement(g, tau, scheme, K, B)
	if scheme == SchemeLanczos {
		// The recurrences run on the twin quotient (lanczosOp).
		q := newTwinOp(g).g
		nq := float64(q.N())
		workers := runtime.GOMAXPROCS(0) * columnBlock
		perStep := lanczosEntrySecs*2*float64(q.NumEdges()) + lanczosRowSecs*nq
		fixed := lanczosSlotSteps(rm, lanczosMaxSteps(q, workers)) * perStep
		refine := lanczosSlotSteps(rm, lanczosMaxSteps(q, workers)) * lanczosStepSeconds(g, tau, perStep)
		// Krylov vectors are allocated as recurrences grow: the longest
		// takes its steps in every slot, at most the memory cap's.
		steps := lanczosMaxSteps(q, workers)
		if len(rm.pilot) > 0 {
			steps = min(steps, slices.Max(rm.pilot))
		}
		return sparseCost{scheme: scheme, seconds: rm.boundSecs + refine, fixed: 6e-6*m + fixed,
			bytes: 2*g.Bytes() + q.Bytes() + int64(8*nq)*int64(workers*(steps+1)+4*columnBlock)}
	}
	blocks := float64((rm.refined+columnBlock-1)/columnBlock) * rm.ballShare
	fixed := 6e-6*m + blocks*float64(K+1)*(nnz+n)*float64(columnBlock)*2/6e9
	if radauWorthIt(g, K) {
		fixed += 2e-5 * m
	}
	step := kernelStepSeconds(g)
	var candBytes int64
	if candidatePass(g, K) {
		// Whole-graph steps, each with an accumulation pass over the block.
		steps := candidateSteps(g, tau)
		fixed += steps * (nnz + 2*n) * float64(columnBlock) * 2 / 6e9
		rm.boundSecs += steps * step * candidateStepFactor
		candBytes = int64(8 * n * columnBlock)
	}
	// The graph and its copy in local order; per edge its record, both
	// positions, its place in the order, C_ij and its flag (53 bytes); per
	// node the two 16-column blocks, C_ii, the twins and the schedule. Go's
	// collector lets the heap grow to about twice that before it runs
	// (measured: 1.8 GiB peak RSS on rgg:n=1000000,radius=0.0025).
	return sparseCost{scheme: scheme, seconds: rm.boundSecs + blocks*float64(K+1)*step, fixed: fixed,
		bytes: 2 * (2*g.Bytes() + int64(53*m) + int64(320*n) + candBytes)}
}

// The cost of one Lanczos recurrence step per stored entry of the twin
// quotient (the sparse product's gathers) and per row (the vector passes),
// on both cores: the minimax fit to full runs on the AS graph, e-mail Enron
// and the PGP web of trust at τ = 0.1 … 10 with the AVX2 kernels
// (docs/derivations.md §2.3; a single per-entry constant fits 1.9× at
// worst, these two 1.8×).
const (
	lanczosEntrySecs = 0.4e-9
	lanczosRowSecs   = 1.5e-9
)

// sparseCost is sparsePlan's answer: the scheme, its time (measured parts
// and model) and memory, and fixed, the time by constants alone (per-edge
// bounds at 6 µs, Radau bounds at 20 µs, the column kernel at 6 GFLOP/s,
// a counted Lanczos step at lanczosEntrySecs and lanczosRowSecs), which does not
// change from one call to the next.
type sparseCost struct {
	scheme         Scheme
	seconds, fixed float64
	bytes          int64
}

// kernelStepSeconds times steps of the column scheme's kernel (16
// columns, both cores) and returns the fastest of four (the first ones warm
// the caches): a block of columns costs K+1 of them. Timed rather than
// modelled because the flop model misses memory traffic by 2–6× (from 10⁶
// nodes the blocks no longer fit in cache). Below 10⁵ stored entries the
// flop model is used.
func kernelStepSeconds(g *laplacian.Graph) float64 {
	n, nnz := g.N(), 2*g.NumEdges()
	if nnz+n < 1e5 {
		return float64(nnz+n) * float64(columnBlock) * 2 / 6e9
	}
	kern := newBlockKernel(g)
	x, y := make([]float64, n*columnBlock), make([]float64, n*columnBlock)
	for k := range x {
		x[k] = 1 / float64(k%7+1) // any non-trivial block
	}
	a := 2 / expm.LambdaMaxBound(g)
	best := math.Inf(1)
	for s := range 4 {
		t := time.Now()
		if s%2 == 0 { // the Chebyshev recurrence's two kinds of step
			kern.step(y, x, nil, a, -1, 0)
		} else {
			kern.step(x, y, x, 2*a, -2, -1)
		}
		best = math.Min(best, time.Since(t).Seconds())
	}
	return best
}

// lanczosStepSeconds times the Lanczos scheme's block step on g's twin
// quotient, every worker stepping its own block of columnBlock
// recurrences at once as the run's workers do, in rounds of four steps for
// about lanczosTiming (at least three rounds), and returns the wall time of
// a step of one recurrence at the median round (as expm.MeasureStepRate
// prices the audit: a round another process preempted, or one that ran
// alone on a busy host, moves it least) over columnBlock·workers. Timed
// rather than modelled, as the column kernel is (kernelStepSeconds): the
// constants perStep is made of (lanczosEntrySecs, lanczosRowSecs) are a
// fit to the AS graph, e-mail Enron and the PGP web of trust, and a step
// costs less where the blocks stay in cache — 144 µs modelled against
// about 88 µs run on lfr20k-0.3 (2·10⁴ nodes, both cores), 95 against 44 µs
// on preferential attachment at 10⁴ nodes (docs/derivations.md §2.3).
// Below 10⁵ stored entries perStep is returned.
func lanczosStepSeconds(g *laplacian.Graph, tau, perStep float64) float64 {
	op := newTwinOp(g)
	if q := op.g; 2*q.NumEdges()+q.N() < 1e5 {
		return perStep
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	var edges [][2]int
	g.ForEachEdge(func(i, j int, _ float64) {
		if len(edges) < columnBlock*workers {
			edges = append(edges, [2]int{i, j})
		}
	})
	blocks := make([]*lanczosBlock, workers)
	for w := range blocks {
		blocks[w] = newLanczosBlock(op, tau, lanczosTimedSteps+4)
	}
	parallel := func(f func(lb *lanczosBlock, w int)) {
		var wg sync.WaitGroup
		for w, lb := range blocks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(lb, w)
			}()
		}
		wg.Wait()
	}
	var times []float64
	timed, start := 0.0, time.Now()
	for len(times) < 3 || (timed < lanczosTiming.Seconds() && time.Since(start) < 2*lanczosTiming) {
		parallel(func(lb *lanczosBlock, w int) {
			for s := range columnBlock {
				e := edges[(w*columnBlock+s)%len(edges)]
				lb.load(s, s, e[0], e[1])
			}
		})
		r0 := cputime.Start() // on every core: the idle machine's time, as the bounds'
		parallel(func(lb *lanczosBlock, _ int) {
			for range lanczosTimedSteps {
				lb.step()
			}
		})
		t := r0.Seconds()
		timed += t
		times = append(times, t/lanczosTimedSteps)
	}
	for _, lb := range blocks {
		for s := range columnBlock {
			lb.idle(s) // the Krylov vectors back to their pool
		}
	}
	slices.Sort(times)
	return times[len(times)/2] / float64(columnBlock*workers)
}

// lanczosTiming is about how long lanczosStepSeconds times block steps,
// in rounds of lanczosTimedSteps.
const (
	lanczosTiming     = 80 * time.Millisecond
	lanczosTimedSteps = 4
)

// lanczosFits reports whether the Krylov vectors of lanczosMinSteps steps
// for every recurrence fit under lanczosMemory.
func lanczosFits(g *laplacian.Graph) bool {
	return lanczosMaxSteps(g, runtime.GOMAXPROCS(0)*columnBlock) >= lanczosMinSteps
}

// refinement is what modelRefinement expects a sparse scheme to do.
type refinement struct {
	refined   int     // classes (Lanczos) or columns (column scheme) refined
	boundSecs float64 // measured wall time of the per-edge bounds, scaled to all edges
	guess     float64 // the estimate of max q_e that decided refined
	ballShare float64 // column scheme: the part of whole-graph steps a block does (ballShare)
	steps     float64 // Lanczos: mean recurrence steps of a refined class (sampleSteps)
	pilot     []int   // the steps of the pilot's classes (the hardest ones)
}

// modelRefinement estimates what scheme refines: the candidates (edge
// classes for Lanczos; edges for the columns, with the Radau bounds when
// the scheme takes them, radauWorthIt) whose proven bound exceeds a guess
// at max q_e, counted as classes (Lanczos) or as distinct endpoints, the
// columns needed (column scheme). The guess is the best lower bound found:
// the Jensen bounds and a pilot (pilotSteps) — the refinement stops at
// about the true maximum, and the Jensen bound alone is 9e-5 on a random
// geometric graph whose maximum is 0.035. Above modelSample edges the
// bounds are taken on an evenly spaced sample and the counts scaled,
// ignoring twins, so that a dry run on 10⁷ edges takes seconds rather than
// the minutes of the bounds themselves.
func modelRefinement(g *laplacian.Graph, tau float64, scheme Scheme, K int, B float64) refinement {
	m := g.NumEdges()
	var cand []edgeClass
	var tops pilotTops        // the pilot's candidates among all edges, not only the sample
	scale, hinted := 1.0, 0.0 // hinted: the best Jensen bound of all edges
	// The bounds run on every core: timed by the process's CPU time over
	// the cores where that is less than the wall (cputime), they are the
	// idle machine's, not the moment's load's (astro-ph at load 20: Δ2
	// modelled at 20 s by the wall, 7 s on an idle machine).
	start, clock := time.Now(), cputime.Start()
	if m <= modelSample && scheme == SchemeLanczos {
		cand = edgeClasses(g, tau, cutoff{})
		return finishRefinement(g, tau, scheme, K, cand, tops, scale, hinted, clock.Seconds())
	}
	side := bridgeSides(g)
	trap := heatTrap(g)
	sample := modelSample
	if scheme == SchemeColumns {
		sample *= 10 // the column pilot needs the run's own top edges (columnPilotLower)
	}
	stride := m/sample + 1
	var ws []float64
	k := 0
	g.ForEachEdge(func(i, j int, w float64) {
		di, dj := g.Degree(i), g.Degree(j)
		c := edgeClass{i: i, j: j, size: 1, lo: jensenLower(g, i, j, w, tau),
			hint: math.Max(di, dj) / math.Min(di, dj), slow: lanczosHint(i, j, w, tau, side), trap: trapScore(trap, i, j)}
		hinted = math.Max(hinted, c.lo)
		tops.offer(c)
		if k%stride == 0 {
			cand = append(cand, c)
			ws = append(ws, w)
		}
		k++
	})
	scale = float64(m) / float64(len(cand))
	sampled, bounds := time.Now(), cputime.Start()
	cheapBounds(g, tau, side, len(cand), func(e int) (int, int, float64) { return cand[e].i, cand[e].j, ws[e] },
		func(e int, u float64) { cand[e].u = u }, cutoff{})
	secs := sampled.Sub(start).Seconds() + bounds.Seconds()*scale
	var rs radauSample
	if scheme == SchemeColumns && radauWorthIt(g, K) {
		rs.cheap = make([]float64, len(cand))
		for k, c := range cand {
			rs.cheap[k] = c.u
		}
		rs.edges = float64(m)
		orig := append([]edgeClass(nil), cand...)
		cand, rs.perEdge = sampleRadau(g, tau, B, cand)
		scale = float64(m) / float64(len(cand))
		hinted = math.Max(hinted, columnPilotLower(g, tau, B, orig, rs.cheap))
	}
	r := finishRefinement(g, tau, scheme, K, cand, tops, scale, hinted, secs)
	r.boundSecs += rs.seconds(r.guess)
	return r
}

// radauSample is what the dry run measured of the Radau bounds: their
// time per edge and the cheap bounds of the sampled edges (of edges in
// all). The run computes them only for edges whose cheap bound exceeds
// its best refined lower bound (tightenCheapBounds), which climbs to
// about max q_e.
type radauSample struct {
	perEdge, edges float64
	cheap          []float64
}

// seconds models the Radau phase for a guess at max q_e: the sampled share
// of cheap bounds above it, of every edge, at the measured time per edge.
func (rs radauSample) seconds(guess float64) float64 {
	if len(rs.cheap) == 0 {
		return 0
	}
	above := 0
	for _, u := range rs.cheap {
		if u > guess {
			above++
		}
	}
	return rs.perEdge * rs.edges * float64(above) / float64(len(rs.cheap))
}

// sampleRadau lowers the candidates' bounds to the Radau bounds, which cost
// 10 µs to 1 ms per edge: in random batches for at most radauTime. It
// returns the candidates reached and the time per candidate.
func sampleRadau(g *laplacian.Graph, tau, B float64, cand []edgeClass) ([]edgeClass, float64) {
	perm := rand.New(rand.NewPCG(1, 2)).Perm(len(cand))
	wmax := 0
	for v := range g.N() {
		cols, _ := g.Neighbors(v)
		wmax = max(wmax, len(cols))
	}
	var done []edgeClass
	start := time.Now()
	works := newRadauWorks(g, tau, B, wmax)
	for len(done) < len(cand) && time.Since(start) < radauTime {
		batch := perm[len(done):min(len(done)+2000, len(cand))]
		radauBounds(works, len(batch), func(k int) (int, int, float64) { c := cand[batch[k]]; return c.i, c.j, c.u },
			func(k int, u float64) { cand[batch[k]].u = u }, cutoff{})
		for _, e := range batch {
			done = append(done, cand[e])
		}
	}
	return done, time.Since(start).Seconds() / float64(len(done))
}

// finishRefinement completes modelRefinement from the candidates with
// their bounds: the guess (hinted, the candidates' Jensen bounds and the
// pilot, on the candidates and tops) and the count of what exceeds it,
// scaled.
func finishRefinement(g *laplacian.Graph, tau float64, scheme Scheme, K int, cand []edgeClass, tops pilotTops, scale, hinted, boundSecs float64) refinement {
	r := refinement{boundSecs: boundSecs, guess: hinted, ballShare: 1}
	for _, c := range cand {
		r.guess = math.Max(r.guess, c.lo)
	}
	// The Lanczos scheme's seeds and the first block of its order (the
	// largest bounds), which the run settles first.
	var seeds []edgeClass
	all := append(append([]edgeClass(nil), cand...), tops.all()...)
	if scheme == SchemeLanczos {
		sorted := append([]edgeClass(nil), all...)
		order, n := lanczosOrder(sorted)
		for _, c := range order[:min(len(order), n+columnBlock)] {
			seeds = append(seeds, sorted[c])
		}
	}
	lower, pilot := pilotSteps(g, tau, all, seeds...)
	r.guess, r.pilot = math.Max(r.guess, lower), pilot
	seen := make(map[int]bool)
	above := 0
	for _, c := range cand {
		if c.u > r.guess {
			above++
			seen[c.i], seen[c.j] = true, true
		}
	}
	if scheme == SchemeColumns {
		r.ballShare = ballShare(g, K, cand, r.guess)
	}
	switch {
	case scheme == SchemeLanczos:
		kept, settled, perClass := radauScreen(g, tau, cand, r.guess)
		r.refined = int(float64(above) * (1 - settled) * scale)
		r.boundSecs += float64(above) * scale * perClass
		r.steps = sampleSteps(g, tau, kept, r.guess)
	case scale == 1:
		r.refined = len(seen)
	default:
		// A node needs its column when one of its d_v edges is refined;
		// the sample says each is, independently, with probability p.
		p, cols := float64(above)/float64(len(cand)), 0.0
		for _, d := range g.Degrees() {
			cols += 1 - math.Pow(1-p, d)
		}
		r.refined = int(cols)
	}
	return r
}

// ballShare models how much of K+1 whole-graph kernel steps a column block
// does (chebColumns steps only over its ball): it forms up to four blocks
// as the run would (blockPicker) from the endpoints of the candidates above
// guess, largest bound first, grows their balls for the K steps and
// returns the mean share of stored entries and rows they cover. The
// candidates are a sample on large graphs, sparser than the run's
// schedule, so its blocks are more spread out and the share errs high.
func ballShare(g *laplacian.Graph, K int, cand []edgeClass, guess float64) float64 {
	var top []edgeClass
	for _, c := range cand {
		if c.u > guess {
			top = append(top, c)
		}
	}
	sort.Slice(top, func(a, b int) bool { return top[a].u > top[b].u })
	var schedule []int
	seen := make(map[int]bool)
	for _, c := range top {
		for _, v := range [2]int{c.i, c.j} {
			if !seen[v] {
				seen[v] = true
				schedule = append(schedule, v)
			}
		}
	}
	total := float64(g.N() + 2*g.NumEdges())
	pick, b := newBlockPicker(g, schedule), newBall(g)
	share, blocks := 0.0, 0
	for ; blocks < 4; blocks++ {
		blk := pick.next()
		if len(blk) == 0 {
			break
		}
		b.reset()
		for _, v := range blk {
			b.add(int32(v))
		}
		covered, k := 0.0, 0 // Σ (d_v + 1) over the ball
		for _, v := range b.front {
			c, _ := g.Neighbors(int(v))
			covered += float64(len(c) + 1)
		}
		for ; k < K && !b.full; k++ {
			b.grow()
			for _, v := range b.front {
				c, _ := g.Neighbors(int(v))
				covered += float64(len(c) + 1)
			}
			share += math.Min(1, covered/total) / float64(K)
		}
		share += float64(K-k) / float64(K)
		b.clearRows()
	}
	if blocks == 0 {
		return 1
	}
	return share / float64(blocks)
}

// pilotTops keeps, over every edge of a sampled graph, the two edges with
// the largest Jensen bound, degree ratio, bridge hint and trapScore: the maximiser is
// one edge in 10⁷, which a sample misses (their bound u is left 0).
type pilotTops struct{ lo, hint, slow, trap [2]edgeClass }

func (t *pilotTops) offer(c edgeClass) {
	c.u = 0
	keep := func(top *[2]edgeClass, key func(edgeClass) float64) {
		switch {
		case top[0].size == 0 || key(c) > key(top[0]):
			top[1], top[0] = top[0], c
		case top[1].size == 0 || key(c) > key(top[1]):
			top[1] = c
		}
	}
	keep(&t.lo, func(c edgeClass) float64 { return c.lo })
	keep(&t.hint, func(c edgeClass) float64 { return c.hint })
	keep(&t.slow, func(c edgeClass) float64 { return c.slow })
	keep(&t.trap, func(c edgeClass) float64 { return c.trap })
}

// all returns the kept edges (size 0 marks an empty place).
func (t *pilotTops) all() []edgeClass {
	var out []edgeClass
	for _, top := range [][2]edgeClass{t.lo, t.hint, t.slow, t.trap} {
		for _, c := range top {
			if c.size > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

// pilotTime bounds the pilot of modelRefinement on graphs of up to 2·10⁶
// stored entries, and grows in proportion beyond (a Lanczos step costs in
// proportion: 20 s at 10⁷ edges).
const pilotTime = 2 * time.Second

// pilotWork is the pilot's work, in stored entries times block columns
// per block step, that runs whatever the clock says: a pilot cut by its
// time alone made the dry run depend on the host's load (on the PGP web of
// trust at τ = 10, whose maximiser needs a few hundred steps, four dry runs
// in a row said 436, 533, 78 and 533 s; the run takes 54–61 s). This much
// is 450 block steps on that graph's twin quotient (4.1·10⁵ entries),
// more than the pilot's kmax, so up to that size the pilot ends by its
// own rules; from 10⁶ nodes pilotTime is the larger.
const pilotWork = 3e9

// columnPilotLower follows the run's first steps (tightenCheapBounds) on
// the sampled edges cand with cheap bounds cheap: Radau bounds for the
// sixteenth with the largest cheap bounds (for at most radauTime), then
// one block of Chebyshev columns for the endpoints of those with the
// largest Radau bounds, and returns the largest proven lower bound
// q̂_e − qErr found. On a random geometric graph the maximiser is a
// bottleneck edge that neither the Jensen bounds nor the Lanczos pilot's
// few steps find.
func columnPilotLower(g *laplacian.Graph, tau, B float64, cand []edgeClass, cheap []float64) float64 {
	idx := make([]int, len(cand))
	for k := range idx {
		idx[k] = k
		cand[k].u = cheap[k]
	}
	sort.Slice(idx, func(a, b int) bool { return cheap[idx[a]] > cheap[idx[b]] })
	top := idx[:max(1, len(idx)/16)]
	p := newChebPlan(g, tau, Options{}.withDefaults().Tol)
	radauBounds(newRadauWorks(g, tau, B, p.wmax), len(top), func(k int) (int, int, float64) { c := cand[top[k]]; return c.i, c.j, c.u },
		func(k int, u float64) { cand[top[k]].u = u }, cutoff{at: time.Now().Add(radauTime)})
	sort.Slice(top, func(a, b int) bool { return cand[top[a]].u > cand[top[b]].u })
	var blk, edges []int
	in := make(map[int]bool)
	for _, k := range top {
		c := cand[k]
		fresh := 0
		for _, v := range [2]int{c.i, c.j} {
			if !in[v] {
				fresh++
			}
		}
		if len(blk)+fresh > columnBlock {
			break
		}
		for _, v := range [2]int{c.i, c.j} {
			if !in[v] {
				in[v] = true
				blk = append(blk, v)
			}
		}
		edges = append(edges, k)
	}
	n := g.N()
	diag, off := make([]float64, n), make([]float64, p.rowStart[n])
	t0, t1 := make([]float64, n*columnBlock), make([]float64, n*columnBlock)
	chebColumns(newBlockKernel(g), newBall(g), blk, singletons(n), p.coef, p.B, p.rowStart, diag, off, t0, t1, cutoff{})
	best := 0.0
	for _, k := range edges {
		i, j := cand[k].i, cand[k].j
		cols, _ := g.Neighbors(i)
		pos := sort.Search(len(cols), func(t int) bool { return cols[t] >= int32(j) })
		best = math.Max(best, diag[i]+diag[j]-2*off[p.rowStart[i]+pos]-p.qErr)
	}
	return best
}

// pilotSlots is the pilot's number of recurrences at once (pilotSteps),
// and pilotKeyed the classes it picks by each of its four keys.
const (
	pilotSlots = columnBlock
	pilotKeyed = 2
)

// pilotSteps returns the largest lower bound on q_e that Lanczos brackets
// of candidates, pilotSlots at once, reach within the pilot's work
// (pilotWork, and beyond it until pilotTime): pilotKeyed each of
// those with the largest bound u, Jensen bound lo (the smallest degrees:
// leaves on sparse graphs), degree ratio (a leaf on a hub, small τ) and
// bridge hint (large τ, where the maximiser needs a few hundred steps:
// e-mail Enron at τ = 10). The recurrences keep three vectors and their
// lower ends are Gauss rules (lanczosWork.gauss), below q_e in exact
// arithmetic but not proven in floating point — a guess is all the model
// needs, and without the Krylov vectors and their certificates a whole
// block of recurrences runs at once, on every core (pgp-strong-2009 at
// τ = 1: 0.39 s, where eight proven ones on one core took 0.8 s). It also returns each
// recurrence's number of steps (the cost model's hardest classes). The
// Lanczos scheme's pilot first brackets first, the run's own seeds
// (lanczosOrder), as the run does before any other class: their lower
// ends are the floor the run prunes and stops every other recurrence
// against (on lfr20k-0.3 at τ = 1 the keyed picks alone reached 1.9·10⁻⁴,
// the seeds 1.02·10⁻³, the maximum, and the model counted 20.3 steps a
// class where the run took 15.3).
func pilotSteps(g *laplacian.Graph, tau float64, cand []edgeClass, first ...edgeClass) (float64, []int) {
	const kmax = 400
	if len(cand)+len(first) == 0 {
		return 0, nil
	}
	// first (the run's seeds) are taken before the keyed picks, and the
	// same edge is not taken twice.
	cand = append(append([]edgeClass(nil), first...), cand...)
	pick := pilotPicks(cand, len(first))
	best := 0.0
	op := newTwinOp(g)
	lb := newLanczosBlock(op, tau, kmax)
	lb.spreadRows() // the pilot runs alone: each step on every core
	var steps []int
	floor := func() float64 { return best }
	done := func(c int, lo, up float64, deep bool) {
		best = math.Max(best, lo*lo*(1-4*roundoffU))
		steps = append(steps, lb.stepsOf(c))
	}
	lb.minSteps = int(pilotWork / (float64(2*op.g.NumEdges()+op.g.N()) * columnBlock))
	for _, lw := range lb.slot {
		lw.window = true
	}
	budget := time.Duration(float64(pilotTime) * max(1, float64(2*g.NumEdges()+g.N())/2e6))
	lb.refine(pilotSlots, lb.inOrder(classEdges(cand, pick)), floor, done, cutoff{at: time.Now().Add(budget)})
	return best, steps
}

// pilotPicks is pilotSteps' choice among cand, whose first nFirst are the
// run's seeds: those, then per key (u, lo, hint, slow) the pilotSlots/4
// largest not yet taken, the first in place among equals (what a stable
// sort by the key would put first), skipping an edge already taken.
func pilotPicks(cand []edgeClass, nFirst int) []int {
	var pick []int
	picked := make([]bool, len(cand))
	edges := make(map[[2]int]bool)
	for k, c := range cand[:nFirst] {
		picked[k], edges[[2]int{c.i, c.j}] = true, true
		pick = append(pick, k)
	}
	for k, c := range cand[nFirst:] {
		if edges[[2]int{c.i, c.j}] {
			picked[nFirst+k] = true
		}
	}
	for _, key := range []func(c edgeClass) float64{
		func(c edgeClass) float64 { return c.u },
		func(c edgeClass) float64 { return c.lo },
		func(c edgeClass) float64 { return c.hint },
		func(c edgeClass) float64 { return c.slow },
	} {
		for range pilotKeyed {
			top := -1
			for k, c := range cand {
				if !picked[k] && (top < 0 || key(c) > key(cand[top])) {
					top = k
				}
			}
			if top < 0 {
				break
			}
			picked[top] = true
			pick = append(pick, top)
		}
	}
	return pick
}

// radauScreen models the run's radauFilter, which tries the Radau bound on
// each class before Lanczos refines it: on an evenly spaced sample of the
// candidates above guess (at most radauScreenSample, for at most
// radauScreenTime) it returns the share settled, the wall time per class
// tried and the sampled classes it left, their bounds lowered. Where it
// settles fewer than radauRate, the run tries one class in radauStride,
// and so does the model. On sparse small-world graphs it is most of the
// run: a two-block SBM of 10⁴ nodes at τ = 1 settles all but 14 of
// 54 941 classes by their Radau bounds.
func radauScreen(g *laplacian.Graph, tau float64, cand []edgeClass, guess float64) (kept []edgeClass, settled, perClass float64) {
	var above []edgeClass
	for _, c := range cand {
		if c.u > guess {
			above = append(above, c)
		}
	}
	if len(above) == 0 {
		return nil, 0, 0
	}
	// The sample on every worker (one radauWork each, as the run spreads
	// the classes over them), sample k on worker k mod workers; each stops
	// once radauScreenTime has passed.
	f := newRadauFilter(g, tau)
	start := time.Now()
	sample := min(len(above), radauScreenSample)
	workers := max(1, min(runtime.GOMAXPROCS(0), sample))
	bounds := make([]float64, sample)
	for k := range bounds {
		bounds[k] = math.NaN() // not tried
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.pool.Get().(*radauWork)
			for k := w; k < sample && time.Since(start) <= radauScreenTime; k += workers {
				c := above[k*len(above)/sample]
				bounds[k] = r.bound(c.i, c.j)
			}
		}()
	}
	wg.Wait()
	tried := 0
	for k, b := range bounds {
		if math.IsNaN(b) {
			continue
		}
		tried++
		if c := above[k*len(above)/sample]; b > guess {
			c.u = math.Min(c.u, b)
			kept = append(kept, c)
		}
	}
	// Wall time on all workers, as the run spreads the classes over them.
	perClass = time.Since(start).Seconds() / float64(tried)
	settled = 1 - float64(len(kept))/float64(tried)
	if settled < radauRate {
		settled, perClass = settled/radauStride, perClass/radauStride
	}
	return kept, settled, perClass
}

// radauScreenSample and radauScreenTime bound radauScreen's work.
const (
	radauScreenSample = 512
	radauScreenTime   = time.Second
)

// sampleSteps runs the Lanczos screening (lanczosWork.estimate, three
// vectors kept) for up to columnBlock of the candidates above guess,
// evenly spread over cand, against guess as the floor, and returns their
// mean number of steps. The run's brackets take about as many: both carry
// the same truncation term (docs/derivations.md §2.4).
func sampleSteps(g *laplacian.Graph, tau float64, cand []edgeClass, guess float64) float64 {
	var above []edgeClass
	for _, c := range cand {
		if c.u > guess {
			above = append(above, c)
		}
	}
	if len(above) == 0 {
		return 0
	}
	pick := make([]int, min(columnBlock, len(above)))
	for k := range pick {
		pick[k] = k * len(above) / len(pick)
	}
	lb := newLanczosBlock(newTwinOp(g), tau, 150)
	lb.spreadRows()
	for _, lw := range lb.slot {
		lw.window = true
	}
	lb.refine(columnBlock, lb.inOrder(classEdges(above, pick)), func() float64 { return guess }, func(int, float64, float64, bool) {}, cutoff{})
	return float64(lb.slotSteps) / float64(len(pick))
}

// classEdges is the representative edge of each class cl[k], k in pick.
func classEdges(cl []edgeClass, pick []int) [][2]int {
	e := make([][2]int, len(pick))
	for k, c := range pick {
		e[k] = [2]int{cl[c].i, cl[c].j}
	}
	return e
}

// lanczosSlotSteps models the recurrence steps of a Lanczos run, in units
// of a step in a full block: the refined classes at the sampled mean, plus
// the pilot's classes that the memory cap kmax cuts short, which the run
// repeats in its second pass at a quarter of the recurrences per block,
// so at four times the cost per step (on e-mail Enron at τ = 10 that pass
// is most of the run).
func lanczosSlotSteps(rm refinement, kmax int) float64 {
	s := float64(rm.refined) * rm.steps
	for _, k := range rm.pilot {
		if k > kmax {
			s += float64(kmax + 4*k)
		}
	}
	return s
}

// modelSample is the number of edges whose bounds the cost model computes
// on large graphs (modelRefinement); a variable only so that tests can
// make it small. radauTime bounds the Radau bounds of the sample.
var modelSample = 200000

const radauTime = 3 * time.Second

// withDefaults fills the zero fields documented on Options.
func (opt Options) withDefaults() Options {
	if opt.DenseLimit == 0 {
		opt.DenseLimit = 2500
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-12
	}
	return opt
}
