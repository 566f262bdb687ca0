package graphcloak

import (
	"context"
	"fmt"
	"github.com/graphcloak/graphcloak/internal/cancel"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// AnswerJob is one private community answer: the operator's raw readings
// never leave; only one community, drawn by privacy.SampleAnswer, does.
type AnswerJob struct {
	Graph *laplacian.Graph
	// Values are the true readings y in graph index order (never returned).
	Values []float64
	// Tau is the diffusion time of the readings (the recovery's model).
	Tau float64
	// Epsilon is the guarantee for moving the source Alpha hops (α ≥ 1
	// rounds up to whole hops; default 1).
	Epsilon, Alpha float64
	// Cap is the mechanism's distance cap (0: chosen for accuracy, 1:
	// randomized response).
	Cap int
	// Partition and Names are the communities (Leiden when nil).
	Partition []int
	Names     []string
	Seed      uint64
	Estimator string
	// Geometry, when non-nil, is the partition's CommunityGeometry
	// computed before (a dry run, a forecast).
	Geometry *privacy.CommunityGeometry
	// Ledger is charged Calibration.Charge (ρ and ε) before anything is drawn.
	Ledger       privacy.Ledger
	Scope, Epoch string
	Noise        privacy.NoiseSource
}

// AnswerResult is the public outcome of Answer.
type AnswerResult struct {
	ReleaseID string `json:"releaseId"`
	// Community is the published community (its name when the partition
	// has names, else its id).
	Community   string                    `json:"community"`
	CommunityID int                       `json:"communityId"`
	Calibration privacy.AnswerCalibration `json:"calibration"`
	// Posterior is what an analyst infers from the answer alone (public):
	// the communities ranked by P(c | answer), with the 90% set.
	Posterior *community.Report `json:"posterior"`
	// ExactSource is true when the readings are exactly the diffusion of
	// one source at the answered node (the model of the guarantee); false
	// means they are not of that form and the guarantee covers the node the
	// estimator chose, not the sources (docs/guarantee.md).
	ExactSource bool  `json:"exactSource"`
	Millis      int64 `json:"computeMillis"`
}

// Answer recovers the source from the noiseless readings (the estimator's
// most likely node), calibrates the answer mechanism, charges the ledger
// and draws the published community. The recovered node is never returned.
func Answer(ctx context.Context, job AnswerJob) (*AnswerResult, error) {
	start := time.Now()
	g := job.Graph
	if g == nil || g.N() == 0 {
		return nil, laplacian.ErrEmptyGraph
	}
	if len(job.Values) != g.N() {
		return nil, &JobError{Param: "values", Reason: fmt.Sprintf("has %d entries for %d nodes", len(job.Values), g.N())}
	}
	if job.Alpha == 0 {
		job.Alpha = 1
	}
	if err := checkParams(job.Tau, job.Alpha, job.Epsilon, 0.5); err != nil {
		return nil, err
	}
	if job.Ledger == nil {
		return nil, &JobError{Param: "ledger", Reason: "is required (it is charged before the answer is drawn)"}
	}
	cg, names, err := answerGeometry(ctx, job)
	if err != nil {
		return nil, err
	}
	cal, err := privacy.CalibrateAnswer(ctx, cg, job.Epsilon, job.Alpha, job.Cap)
	if err != nil {
		return nil, err
	}
	hat, exact, err := recoverSource(ctx, job)
	if err != nil {
		return nil, err
	}
	id := privacy.NewReleaseID()
	if err := job.Ledger.Charge(ctx, cal.Charge(job.Scope, job.Epoch)); err != nil {
		return nil, err
	}
	o, err := privacy.SampleAnswer(privacy.AnswerRequest{Calibration: cal, Distances: cg.DistancesFrom(hat), Source: hat,
		Noise: job.Noise, ReleaseID: id, Scope: job.Scope, Epoch: job.Epoch})
	if err != nil {
		return nil, err
	}
	post := cal.AnswerPosterior(cg, o)
	res := &AnswerResult{ReleaseID: id, CommunityID: o, Community: communityName(names, o), Calibration: cal, ExactSource: exact,
		Posterior: community.Rank(g, cg.Partition(), names, nodeWeights(cg, post), false)}
	res.Millis = time.Since(start).Milliseconds()
	return res, nil
}

// answerGeometry returns the community geometry of the job's partition
// (Leiden when none) and the names under its canonical ids.
func answerGeometry(ctx context.Context, job AnswerJob) (*privacy.CommunityGeometry, []string, error) {
	part, names := job.Partition, job.Names
	if part == nil {
		var err error
		if part, err = community.Leiden(job.Graph, community.LeidenOptions{Seed: job.Seed}); err != nil {
			return nil, nil, err
		}
		names = nil
	}
	cg := job.Geometry
	if cg == nil {
		var err error
		if cg, err = privacy.NewCommunityGeometry(ctx, job.Graph, part); err != nil {
			return nil, nil, err
		}
	}
	if names != nil {
		canon := make([]string, cg.K())
		for i, c := range part {
			canon[cg.Community(i)] = names[c]
		}
		names = canon
	}
	return cg, names, nil
}

// exactCandidates is how many of the estimator's most likely nodes are
// checked for an exact fit of the readings.
const exactCandidates = 32

// recoverSource returns the single source node whose diffusion is the
// readings: among the estimator's most likely nodes (on a vanishing σ) the
// first s with ‖exp(−τL)e_s·μ − y‖ ≤ 1e-6·‖y‖, μ = Σy (mass is
// conserved). exact reports whether one was found. The answer's
// guarantee is about this node; it is the true source only when it fits
// the readings exactly — an estimate alone (the estimator's column norms
// are randomised on large graphs) could map two neighbouring sources to
// nodes far apart.
func recoverSource(ctx context.Context, job AnswerJob) (best int, exact bool, err error) {
	est, err := recovery.ByName(job.Estimator)
	if err != nil {
		return 0, false, err
	}
	scale, mass, norm := 0.0, 0.0, 0.0
	for _, v := range job.Values {
		scale = math.Max(scale, math.Abs(v))
		mass += v
		norm += v * v
	}
	if scale == 0 {
		return 0, false, &JobError{Param: "values", Reason: "are all zero: there is no source to answer about"}
	}
	e, err := cancel.Run(ctx, func() (*recovery.Estimate, error) {
		model, err := recovery.NewGraphModel(job.Graph, job.Tau, recovery.GraphOptions{})
		if err != nil {
			return nil, err
		}
		p := model.Problem(job.Values, 1e-9*scale)
		p.Sources = 1
		return recovery.Solve(recovery.ForOperator(est), p)
	})
	if err != nil {
		return 0, false, err
	}
	w := e.Weights()
	if e.NoSource() {
		w = e.F
	}
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return w[order[a]] > w[order[b]] })
	act, err := expm.NewAction(job.Graph, job.Tau, expm.Options{Columns: exactCandidates})
	if err != nil {
		return 0, false, err
	}
	f, y := make([]float64, len(w)), make([]float64, len(w))
	for _, c := range order[:min(exactCandidates, len(order))] {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		clear(f)
		f[c] = mass
		act.Apply(y, f, 1)
		d := 0.0
		for i, v := range y {
			d += (v - job.Values[i]) * (v - job.Values[i])
		}
		if math.Sqrt(d) <= 1e-6*math.Sqrt(norm) {
			return c, true, nil
		}
	}
	return order[0], false, nil
}

// nodeWeights spreads a community posterior over its members, so the
// community report (which aggregates node weights) ranks it.
func nodeWeights(cg *privacy.CommunityGeometry, post []float64) []float64 {
	size := make([]int, cg.K())
	for _, c := range cg.Partition() {
		size[c]++
	}
	w := make([]float64, cg.N())
	for i, c := range cg.Partition() {
		w[i] = post[c] / float64(size[c])
	}
	return w
}

func communityName(names []string, c int) string {
	if names != nil {
		return names[c]
	}
	return strconv.Itoa(c)
}
