package privacy

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Sensitivity is the L2 sensitivity Δ2 of a diffusion measurement matrix M
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
type Sensitivity struct {
	Delta2    float64 // rounded up; exact value or certified upper bound
	Certified bool    // true: exact (to stated slack, rounded up) or a proven upper bound
	Exact     bool    // true: Delta2 is the true value to within Slack (dense, or sparse refined to the end); false: only an upper bound (time budget hit)
	Method    string  // "dense-eigen", "chebyshev-columns", "bound-and-refine", "lanczos-edges", "heat-kernel-1d", "matrix", "no-edges"
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
}

// GraphOptions tune GraphSensitivity. The zero value means the defaults.
type GraphOptions struct {
	// Method selects the algorithm. Default expm.Auto: the dense
	// eigendecomposition when it is cheaper than the sparse column scheme
	// (and n ≤ DenseLimit), else the sparse scheme. expm.Dense forces the
	// dense path (n ≤ DenseLimit, else ErrTooLarge); expm.Sparse forces the
	// sparse path, whose algorithm Scheme selects.
	Method expm.Method
	// Scheme selects the sparse path's algorithm. Default SchemeAuto.
	Scheme SparseScheme
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
	Status func(SensitivityStatus)
	// TimeBudget stops the sparse path's refinement after this long and
	// returns the certified upper bound reached so far (Exact = false). A
	// column block running at the deadline is abandoned (and one expected
	// to end too late is not started); Lanczos recurrences stop with their
	// brackets so far; the per-edge bound phase always runs (about a
	// minute at 10⁷ edges). Default 0: run until Δ2 is known to the slack
	// of the method.
	TimeBudget time.Duration
}

// SparseScheme is the algorithm of the sparse path.
type SparseScheme int

const (
	// SchemeAuto chooses Lanczos edge brackets when the certified
	// Chebyshev degree is high, or on graphs with hubs when its modelled
	// time is smaller (sparsePlan), and only when its Krylov vectors fit;
	// Chebyshev columns otherwise.
	SchemeAuto SparseScheme = iota
	// SchemeColumns computes Chebyshev columns of exp(−2τL) with
	// bound-and-refine pruning (sparseGraphSensitivity).
	SchemeColumns
	// SchemeLanczos brackets each edge class by Lanczos with a rigorous
	// a-posteriori bound (lanczosGraphSensitivity).
	SchemeLanczos
)

// lanczosMinSteps is the fewest Lanczos steps per edge the memory must
// allow for the Lanczos scheme.
const lanczosMinSteps = 64

// SensitivityStatus is the anytime state of a Δ2 computation: Delta2 is
// already a proven upper bound (what a stop now would return), and
// EdgesCertified counts the edges whose term is settled (computed, or
// bounded below the best proven lower bound of the maximum).
type SensitivityStatus struct {
	Edges          int
	EdgesCertified int
	Delta2         float64
	Elapsed        time.Duration
}

// ParamError reports an invalid sensitivity parameter.
type ParamError struct {
	Name   string
	Value  float64
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("privacy: invalid %s = %v: %s", e.Name, e.Value, e.Reason)
}

// PairError reports an invalid declared adjacent location pair.
type PairError struct {
	Index    int // position in the pairs slice
	I, J     int
	Distance float64
	Reason   string
}

func (e *PairError) Error() string {
	return fmt.Sprintf("privacy: invalid location pair %d (%d, %d, distance %v): %s", e.Index, e.I, e.J, e.Distance, e.Reason)
}

// ErrNotConnected is returned by MatrixSensitivity when the declared pairs
// leave some location unreachable: a neighbouring move through it would be
// unaccounted for, so no Δ2 can be certified.
var ErrNotConnected = errors.New("privacy: declared location pairs do not connect every location")

// ErrTooLarge is returned when the dense method is forced on a graph larger
// than GraphOptions.DenseLimit.
var ErrTooLarge = errors.New("privacy: graph too large for the dense method")

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

// GraphSensitivity returns Δ2 of the heat-diffusion measurement
// M = exp(−τL) on g under the hop metric (every edge has length 1; edge
// weights change L, not the metric):
//
//	Δ2 = α · max over edges (i,j) ‖exp(−τL)(e_i − e_j)‖₂,
//	‖exp(−τL)(e_i − e_j)‖² = C_ii + C_jj − 2C_ij,  C = exp(−2τL).
//
// A disconnected graph is allowed: an edge joins nodes of one component, so
// the formula holds unchanged; Components reports the count. A graph without
// edges has Δ2 = 0 (no source can move). See GraphOptions for the methods.
func GraphSensitivity(g *laplacian.Graph, tau, alpha float64, opt GraphOptions) (Sensitivity, error) {
	if g == nil || g.N() == 0 {
		return Sensitivity{}, laplacian.ErrEmptyGraph
	}
	if err := checkPositive("tau", tau); err != nil {
		return Sensitivity{}, err
	}
	if err := checkPositive("alpha", alpha); err != nil {
		return Sensitivity{}, err
	}
	opt = opt.withDefaults()
	if err := checkPositive("tol", opt.Tol); err != nil {
		return Sensitivity{}, err
	}
	if opt.TimeBudget < 0 {
		return Sensitivity{}, &ParamError{"time-budget", opt.TimeBudget.Seconds(), "must be ≥ 0"}
	}
	comps, _ := g.Components()
	base := Sensitivity{
		Certified:  true,
		Alpha:      alpha,
		Edge:       [2]int{-1, -1},
		Nodes:      g.N(),
		Edges:      g.NumEdges(),
		Components: comps,
	}
	if g.NumEdges() == 0 {
		base.Exact = true
		base.Method = "no-edges"
		base.Kappa2 = 1 // exp(−τ·0) = I
		return base, nil
	}
	method, scheme := opt.Method, opt.Scheme
	switch method {
	case expm.Auto:
		method = expm.Sparse // the plan's choice above the dense limit, without its models' cost
		if g.N() <= opt.DenseLimit {
			p := PlanGraphSensitivity(g, tau, opt)
			method, scheme = p.Method, p.Scheme
		}
	case expm.Dense:
		if g.N() > opt.DenseLimit {
			return Sensitivity{}, fmt.Errorf("%w: n = %d > dense limit %d", ErrTooLarge, g.N(), opt.DenseLimit)
		}
	case expm.Sparse:
	default:
		return Sensitivity{}, &ParamError{"method", float64(method), "unknown method"}
	}
	if method == expm.Sparse && scheme == SchemeAuto {
		scheme, _, _ = sparsePlan(g, tau, opt)
	}
	var s Sensitivity
	var err error
	switch {
	case method == expm.Dense:
		s, err = denseGraphSensitivity(g, tau, alpha, base)
	case scheme == SchemeLanczos:
		if !lanczosFits(g) {
			return Sensitivity{}, fmt.Errorf("%w: the Lanczos scheme needs %d·n float64s per worker", ErrTooLarge, (lanczosMinSteps+1)*columnBlock)
		}
		s = lanczosGraphSensitivity(g, tau, alpha, opt, base)
	default:
		s, err = sparseGraphSensitivity(g, tau, alpha, opt, base)
	}
	return honestExact(s), err
}

// ExactRelativeSlack is the widest certified bracket, relative to Δ2, that
// is still called exact.
const ExactRelativeSlack = 1e-6

// honestExact sets RelativeSlack and withdraws the claim Exact when the
// certified bracket is wider than ExactRelativeSlack of Δ2 (a bound whose
// slack is as large as the value is an upper bound, not the value).
func honestExact(s Sensitivity) Sensitivity {
	if s.Delta2 > 0 {
		s.RelativeSlack = s.Slack / s.Delta2
	}
	if s.RelativeSlack > ExactRelativeSlack {
		s.Exact = false
	}
	return s
}

// SensitivityPlan is how GraphSensitivity will compute Δ2 on a graph and
// what that is modelled to cost. It is the one cost model: the dry run
// reports it and GraphSensitivity's Auto method follows it.
type SensitivityPlan struct {
	Method  expm.Method  // expm.Dense or expm.Sparse
	Scheme  SparseScheme // the sparse algorithm (SchemeColumns or SchemeLanczos) when Method is expm.Sparse
	Seconds float64      // modelled time on the 2-core reference machine
	Bytes   int64        // modelled peak memory of the computation
}

// PlanGraphSensitivity chooses the method GraphSensitivity uses under
// opt.Method == expm.Auto, from rough cost models measured on the 2-core
// reference machine: gonum's EigenSym with vectors costs about
// 1.5 s·(n/1000)^3.6 and 4n² float64s; the sparse schemes as sparsePlan
// models them. Dense is chosen for n ≤ 300, and up to opt.DenseLimit when
// it is modelled cheaper. Zero options mean the defaults of
// GraphSensitivity.
func PlanGraphSensitivity(g *laplacian.Graph, tau float64, opt GraphOptions) SensitivityPlan {
	opt = opt.withDefaults()
	n := float64(g.N())
	dense := 1.5 * math.Pow(n/1000, 3.6)
	denseOK := g.N() <= opt.DenseLimit
	if denseOK && g.N() <= 300 {
		return SensitivityPlan{Method: expm.Dense, Seconds: dense, Bytes: int64(4*8*n*n) + g.Bytes()}
	}
	scheme, sparse, bytes := sparsePlan(g, tau, opt)
	if denseOK && dense < sparse {
		return SensitivityPlan{Method: expm.Dense, Seconds: dense, Bytes: int64(4*8*n*n) + g.Bytes()}
	}
	return SensitivityPlan{Method: expm.Sparse, Scheme: scheme, Seconds: sparse, Bytes: bytes}
}

// lanczosMinDegree is the Chebyshev degree from which SchemeAuto always
// prefers Lanczos (when it fits), and lanczosHubRatio the ratio of the
// largest to the mean weighted degree from which it does so below that
// degree when the model says Lanczos is faster.
const (
	lanczosMinDegree = 96
	lanczosHubRatio  = 20
)

// sparsePlan resolves opt.Scheme (SchemeAuto: see the measurements in its
// body; Lanczos only when lanczosFits) and models the chosen scheme's time and
// memory on the 2-core reference machine (docs/derivations.md §2.3): both
// schemes spend their time on the classes (columns) refinedByModel expects
// them to refine, the column scheme about 2·c·K·(nnz+n) flops at ~6 GF/s
// for c columns, K the certified Chebyshev degree for τ·λmax-bound at
// tolerance opt.Tol, the Lanczos scheme about 0.6 ns per stored entry and
// unit of √(τB) per class (the AS graph and e-mail Enron at τ = 0.1–10:
// within 2× of the measured time), and both about 6 µs per edge for the
// classes and their cheap bounds. opt must have its defaults.
func sparsePlan(g *laplacian.Graph, tau float64, opt GraphOptions) (SparseScheme, float64, int64) {
	n := float64(g.N())
	nnz := 2 * float64(g.NumEdges())
	B := expm.LambdaMaxBound(g)
	K := float64(chebDegree(tau*B, opt.Tol))
	classes, cols := refinedByModel(g, tau)
	setup := float64(g.NumEdges()) * 6e-6
	columns := setup + float64(cols)*K*(nnz+n)*2/6e9
	lanczos := setup + float64(classes)*(nnz+n)*math.Sqrt(tau*B)*0.6e-9
	scheme := opt.Scheme
	if scheme == SchemeAuto {
		// Measured: Lanczos wins from degree 96 on (the AS graph from
		// τ = 0.1), and below it on graphs with hubs when modelled faster
		// (e-mail Enron at τ = 0.1: 2.5 s against 23 s);
		// without hubs the columns' three-node Radau bounds prune more
		// than the model sees (a 100×100 grid: 0.5 s against 3.2 s).
		mean := 0.0
		for _, d := range g.Degrees() {
			mean += d / n
		}
		hubs := g.MaxDegree() >= lanczosHubRatio*mean
		scheme = SchemeColumns
		if lanczosFits(g) && (K >= lanczosMinDegree || (hubs && lanczos < columns)) {
			scheme = SchemeLanczos
		}
	}
	if scheme == SchemeLanczos {
		workers := runtime.GOMAXPROCS(0) * columnBlock
		return scheme, lanczos, g.Bytes() + int64(8*n)*int64(workers*(lanczosMaxSteps(g, workers)+1)+4*columnBlock)
	}
	return scheme, columns, g.Bytes() + int64(64*8*n)
}

// lanczosFits reports whether the Krylov vectors of lanczosMinSteps steps
// for every recurrence fit under lanczosMemory.
func lanczosFits(g *laplacian.Graph) bool {
	return lanczosMaxSteps(g, runtime.GOMAXPROCS(0)*columnBlock) >= lanczosMinSteps
}

// refinedByModel is what the cost models expect the sparse schemes to
// refine: the edge classes whose cheap bound exceeds a guess at the largest
// q_e (the best of the Jensen lower bounds and the bridge hints), and the
// distinct endpoints of those classes (the columns they need). Above
// modelSample edges the cheap bounds (the costly part) are taken on an
// evenly spaced sample and scaled, ignoring twins, so that a dry run on 10⁷
// edges takes seconds rather than the minute of the bounds themselves.
func refinedByModel(g *laplacian.Graph, tau float64) (classes, nodes int) {
	m := g.NumEdges()
	if m <= modelSample {
		cl := edgeClasses(g, tau)
		guess := 0.0
		for _, c := range cl {
			guess = math.Max(guess, math.Max(c.lo, c.slow))
		}
		seen := make(map[int]bool)
		for _, c := range cl {
			if c.u > guess {
				classes++
				seen[c.i], seen[c.j] = true, true
			}
		}
		return classes, len(seen)
	}
	side := bridgeSides(g)
	guess := 0.0
	type edge struct {
		i, j int
		w    float64
	}
	sample := make([]edge, 0, modelSample)
	k := 0
	g.ForEachEdge(func(i, j int, w float64) {
		guess = math.Max(guess, math.Max(jensenLower(g, i, j, w, tau), lanczosHint(i, j, w, tau, side)))
		if k%(m/modelSample+1) == 0 {
			sample = append(sample, edge{i, j, w})
		}
		k++
	})
	u := make([]float64, len(sample))
	cheapBounds(g, tau, len(sample), func(e int) (int, int, float64) { return sample[e].i, sample[e].j, sample[e].w },
		func(e int, v float64) { u[e] = v })
	above := 0
	for _, v := range u {
		if v > guess {
			above++
		}
	}
	classes = int(float64(above) / float64(len(sample)) * float64(m))
	return classes, min(g.N(), 2*classes)
}

// modelSample is the number of edges whose cheap bounds the cost model
// computes on large graphs (refinedByModel); a variable only so that tests
// can make it small.
var modelSample = 200000

// withDefaults fills the zero fields documented on GraphOptions.
func (opt GraphOptions) withDefaults() GraphOptions {
	if opt.DenseLimit == 0 {
		opt.DenseLimit = 2500
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-12
	}
	return opt
}
