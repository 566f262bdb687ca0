package answer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Request is one private community answer: the operator's raw readings
// never leave; only one community, drawn by privacy.SampleAnswer, does.
type Request struct {
	Graph *laplacian.Graph
	// Values are the true readings y in graph index order (never returned).
	Values []float64
	// Tau is the diffusion time of the readings (the recovery's model).
	Tau float64
	// Epsilon is the guarantee for moving the source Alpha hops (α ≥ 1
	// rounds up to whole hops; default 1).
	Epsilon, Alpha float64
	// DriftHops is the drift allowance d of a scope's sensor model: the
	// mechanism is calibrated at CalibrationAlpha(Alpha, d), so a centre
	// moved up to d hops at each end stays within Epsilon per Alpha hops;
	// under privacy.DriftAny it is randomized response at Epsilon
	// (CalibrationCap), and a centre moved anywhere stays within it.
	DriftHops int
	// Cap is the mechanism's distance cap (0: chosen for accuracy, 1:
	// randomized response).
	Cap int
	// Partition and Names are the communities (Leiden when nil).
	Partition []int
	Names     []string
	Seed      uint64
	// FitTolerance is the certifier's T (0: recovery.DefaultFitTolerance);
	// SensorNoise, when > 0, states the sensors' noise bound ν instead
	// (recovery.CertifierOptions.SensorNoise).
	FitTolerance, SensorNoise float64
	// Diagnose asks, for readings outside the model, for what was measured
	// (Result.Diagnosis, or the *recovery.MismatchError's Diagnosis):
	// the operator's non-private diagnostic.
	Diagnose bool
	// OnMismatch says what to do with readings that are not one source's
	// diffusion within the tolerance: MismatchRefuse (default) or
	// MismatchRandomizedResponse.
	OnMismatch string
	// Model, when non-nil, is the Model built before (a plan, a
	// forecast, a cache) for the same graph, τ, tolerance and partition.
	Model *Model
	// Audited, when non-nil, is the audit of Calibrated, the mechanism
	// calibrated on Model before (a plan's, or one the work store kept
	// for it): Run takes it instead of auditing again when the mechanism
	// it calibrates is that one (the same record), and audits otherwise.
	// The audit is the answer's longest step (Enron: 40 CPU-minutes).
	Audited    *Audit
	Calibrated privacy.AnswerCalibration
	// Ledger is charged AnswerCharge (ρ, ε and δ₀) before anything is drawn.
	Ledger       privacy.Ledger
	Scope, Epoch string
	Noise        privacy.NoiseSource
}

// What an answer does with readings outside the model.
const (
	// MismatchRefuse refuses them (nothing charged).
	MismatchRefuse = "refuse"
	// MismatchRandomizedResponse answers them by randomized response over
	// the communities, centred on the best fit's community: ε-DP between
	// any two inputs, so it needs no model.
	MismatchRandomizedResponse = "rr"
	// MismatchNearest answers every reading vector by the calibrated
	// mechanism centred on its best fit (readings that are not numbers
	// read as 0): nothing is refused and no mechanism is switched, so no
	// decision depends on the source; outside the model only the centre
	// drifts, and d hops of drift cost at most (1 + 2d)·ε/⌈α⌉ between
	// neighbours — any drift at most ε under randomized response
	// (privacy.DriftAny; docs/guarantee.md, "Sensor imperfections").
	MismatchNearest = "nearest"
)

// AnsweredNearest is Result.Mismatch of every answer under
// MismatchNearest, whether the readings fitted or not: publishing which
// would be the decision MismatchNearest removes.
const AnsweredNearest = "answered at the nearest fit (whether the readings fit the model is not published)"

// AnsweredByRR is Result.Mismatch of an answer drawn by randomized
// response: one fixed text whatever the readings (what was measured would
// tell neighbouring sources apart; it is Result.Diagnosis, on request).
const AnsweredByRR = "outside the model: answered by randomized response"

// Result is the public outcome of Answer.
type Result struct {
	ReleaseID string `json:"releaseId"`
	// Community is the published community (its name when the partition
	// has names, else its id).
	Community   string                    `json:"community"`
	CommunityID int                       `json:"communityId"`
	Calibration privacy.AnswerCalibration `json:"calibration"`
	// Posterior is what an analyst infers from the answer alone (public):
	// the communities ranked by P(c | answer), with the 90% set.
	Posterior *community.Report `json:"posterior"`
	// ExactSource is true when the readings were certified to be one
	// source's diffusion at τ (any mass, any constant background, within
	// the fit tolerance): the guarantee covers the source. False only with
	// OnMismatch = MismatchRandomizedResponse, when Mismatch is AnsweredByRR
	// (one fixed text) and the answer is randomized response.
	ExactSource bool `json:"exactSource"`
	// Delta is the answer's δ₀ (Model.NoiseDelta): the answer, its
	// decision included, is (ε, δ₀)-DP, and δ₀ was charged. 0 without a
	// stated sensor noise (ε-DP).
	Delta    float64 `json:"delta"`
	Mismatch string  `json:"mismatch,omitempty"`
	// Diagnosis, with Request.Diagnose, says what was measured of
	// readings outside the model. It depends on the readings and is never
	// published: not in JSON, run records or logs.
	Diagnosis string `json:"-"`
	// Audit is the end-to-end check the answer passed (Model.Audit).
	Audit  *Audit `json:"answerAudit"`
	Millis int64  `json:"computeMillis"`
}

// Answer certifies the source of the noiseless readings (a class of nodes
// no reading can tell apart, recovery.Certifier), calibrates the answer
// mechanism on the model's geometry, audits it on every edge, charges the
// ledger and draws the published community. The charge comes before the
// readings are looked at: readings outside the model are refused after it
// (a *recovery.MismatchError, charged like an answer), or with
// OnMismatch = MismatchRandomizedResponse answered by randomized response.
// The recovered node is never returned.
func Run(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	g := req.Graph
	if g == nil || g.N() == 0 {
		return nil, laplacian.ErrEmptyGraph
	}
	if len(req.Values) != g.N() {
		return nil, &graphcloak.ParamError{Param: "values", Reason: fmt.Sprintf("has %d entries for %d nodes", len(req.Values), g.N())}
	}
	if req.Alpha == 0 {
		req.Alpha = 1
	}
	if err := graphcloak.CheckParams(req.Tau, req.Alpha, req.Epsilon, 0.5); err != nil {
		return nil, err
	}
	switch req.OnMismatch {
	case "", MismatchRefuse, MismatchRandomizedResponse, MismatchNearest:
	default:
		return nil, &graphcloak.ParamError{Param: "on-mismatch", Reason: fmt.Sprintf("is %q: must be %q, %q or %q", req.OnMismatch, MismatchRefuse, MismatchRandomizedResponse, MismatchNearest)}
	}
	if req.Ledger == nil {
		return nil, &graphcloak.ParamError{Param: "ledger", Reason: "is required (it is charged before the answer is drawn)"}
	}
	d, err := prepareMechanism(ctx, req)
	if err != nil {
		return nil, err
	}
	// δ₀ and ε are charged before the readings are looked at, so a
	// refusal of them costs what an answer costs: asking the same
	// readings again (under another model, or with another ε) is never
	// free (docs/derivations.md §5.1b).
	if err := req.Ledger.Charge(ctx, AnswerCharge(d.model, d.cal, req.Scope, req.Epoch)); err != nil {
		return nil, err
	}
	if err := d.fit(ctx, req); err != nil {
		return nil, err
	}
	m, cal, hat := d.model, d.cal, d.hat
	res := &Result{ExactSource: d.mismatch == nil, Audit: d.audit}
	if req.OnMismatch == MismatchNearest {
		res.ExactSource, res.Mismatch = false, AnsweredNearest
	}
	if d.mismatch != nil && req.OnMismatch == MismatchNearest {
		if req.Diagnose {
			res.Diagnosis = d.mismatch.Diagnosis()
		}
	} else if d.mismatch != nil {
		res.Mismatch = AnsweredByRR
		if req.Diagnose {
			res.Diagnosis = d.mismatch.Diagnosis()
			if !d.mismatch.Broken {
				res.Diagnosis = d.model.Certifier.Diagnose(req.Values).Diagnosis()
			}
		}
	}
	id := privacy.NewReleaseID()
	o, err := privacy.SampleAnswer(privacy.AnswerRequest{Calibration: cal, Distances: m.Geometry.DistancesFrom(hat), Source: hat,
		Noise: req.Noise, ReleaseID: id, Scope: req.Scope, Epoch: req.Epoch})
	if err != nil {
		return nil, err
	}
	post := cal.AnswerPosterior(m.Geometry, o)
	res.ReleaseID, res.CommunityID, res.Community, res.Calibration = id, m.PartitionID(o), communityName(m.Names, o), cal
	res.Delta = m.NoiseDelta()
	res.Posterior = community.Rank(m.Geometry.Graph(), m.Geometry.Partition(), m.Names, nodeWeights(m.Geometry, post), false)
	m.sizeInNodes(res.Posterior)
	m.inPartitionIDs(res.Posterior)
	res.Millis = time.Since(start).Milliseconds()
	return res, nil
}

// AnswerCharge is what an answer on m with calibration cal costs: its ρ
// and ε, and δ₀ (Model.NoiseDelta) under a stated sensor noise.
func AnswerCharge(m *Model, cal privacy.AnswerCalibration, scope, epoch string) privacy.Charge {
	c := cal.Charge(scope, epoch)
	c.Delta = m.NoiseDelta()
	return c
}

// answerDraw is an answer's mechanism and audit (decided before the
// charge) and the node of the model's geometry it is centred on (after).
type answerDraw struct {
	model    *Model
	cal      privacy.AnswerCalibration
	audit    *Audit
	hat      int
	mismatch *recovery.MismatchError // readings outside the model, answered by RR
}

// prepareMechanism builds (or takes) the model, calibrates and audits the
// mechanism — refusing, before any charge, an audit that fails. It reads
// no reading: they are fitted after the charge (answerDraw.fit). The
// published distribution is d.cal.ProbabilitiesAt(d.model.Geometry, d.hat).
func prepareMechanism(ctx context.Context, req Request) (*answerDraw, error) {
	m, err := answerModel(ctx, req)
	if err != nil {
		return nil, err
	}
	d := &answerDraw{model: m}
	if d.cal, err = privacy.CalibrateAnswer(ctx, m.Geometry, req.Epsilon, CalibrationAlpha(req.Alpha, req.DriftHops), CalibrationCap(req.Cap, req.DriftHops)); err != nil {
		return nil, err
	}
	if err := m.CheckDrift(ctx, d.cal, req.DriftHops); err != nil {
		return nil, err
	}
	if d.audit = req.auditOf(d.cal); d.audit == nil {
		if d.audit, err = m.Audit(ctx, d.cal); err != nil {
			return nil, err
		}
	}
	if !d.audit.Passed {
		return nil, &AuditError{Audit: d.audit}
	}
	return d, nil
}

// fit fits the readings (after the charge): readings outside the model
// are refused (unless OnMismatch is MismatchRandomizedResponse, when d.cal
// becomes randomized response of the same ε); d.hat is the node the
// answer is centred on.
func (d *answerDraw) fit(ctx context.Context, req Request) error {
	m := d.model
	node, mismatch, err := m.FitReadings(req.Values, req.OnMismatch)
	if err != nil {
		var mm *recovery.MismatchError
		if req.Diagnose && errors.As(err, &mm) && !mm.Broken {
			*mm = *m.Certifier.Diagnose(req.Values)
		}
		return err
	}
	if mismatch != nil && req.OnMismatch != MismatchNearest {
		// Randomized response is ε-DP between any two inputs: it needs
		// no model, so it may answer readings outside it.
		if d.cal, err = privacy.CalibrateAnswer(ctx, m.Geometry, req.Epsilon, req.Alpha, 1); err != nil {
			return err
		}
	}
	d.hat, d.mismatch = m.node(node), mismatch
	return nil
}

// auditOf is req.Audited when it is the audit of cal on req.Model (cal's
// record is Calibrated's), else nil.
func (req Request) auditOf(cal privacy.AnswerCalibration) *Audit {
	if req.Audited == nil || req.Model == nil || !reflect.DeepEqual(req.Calibrated.Record(), cal.Record()) {
		return nil
	}
	return req.Audited
}

// FitReadings returns the node the certified recovery fits to the
// readings. Readings outside the model are refused (the
// *recovery.MismatchError) unless onMismatch is MismatchRandomizedResponse:
// then every kind of them — a misfit, no source signal, a background
// beyond the bound — is returned as mismatch, for randomized response
// centred on the best fit (node 0 when there is none: RR is ε-DP whatever
// its centre). So the two paths part only at the model's edge, never by a
// kind of refusal that depends on where the source is.
func (m *Model) FitReadings(values []float64, onMismatch string) (node int, mismatch *recovery.MismatchError, err error) {
	if onMismatch == MismatchNearest {
		return m.fitNearest(values)
	}
	// A broken reading (NaN, ±Inf: missing or unreadable readings are read
	// as NaN in private-answer mode) is outside the model like any other:
	// the same fixed sentence, the same path, never the node's name.
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			mismatch = &recovery.MismatchError{Broken: true, BrokenNode: m.Graph.Key(i), Tol: m.Certifier.Tol(), Tau: m.Tau,
				TwoSourceResidual: math.NaN(), OtherTauResidual: math.NaN()}
			if onMismatch != MismatchRandomizedResponse {
				return 0, nil, mismatch
			}
			return 0, mismatch, nil
		}
	}
	fit, err := m.Certifier.Fit(values)
	if err == nil {
		return fit.Node, nil, nil
	}
	if !errors.As(err, &mismatch) || onMismatch != MismatchRandomizedResponse {
		return 0, nil, err
	}
	return fit.Node, mismatch, nil
}

// fitNearest is FitReadings under MismatchNearest: a reading that is not
// a number reads as 0 (a dead sensor), and the best fit is returned
// whether it is inside the model or not (node 0 when no node fits: a
// fixed, public centre); mismatch says which, for Diagnose only.
func (m *Model) fitNearest(values []float64) (int, *recovery.MismatchError, error) {
	y := values
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if &y[0] == &values[0] {
				y = append([]float64(nil), values...)
			}
			y[i] = 0
		}
	}
	fit, err := m.Certifier.Fit(y)
	var mismatch *recovery.MismatchError
	if err != nil && !errors.As(err, &mismatch) {
		return 0, nil, err
	}
	// Outside the model one faulty sensor (stuck, dead, saturated) is the
	// likeliest cause. Each of the spikiest sensors in turn is read as its
	// neighbours' mean, and the best of those fits and the first is the
	// centre: a function of the readings alone (under privacy.DriftAny any
	// such function is covered). The refits run inside the model too, so
	// the work, and the published computeMillis, do not tell the two apart.
	best, ok := fit, mismatch == nil || !(mismatch.NoSignal || mismatch.Precision)
	for _, i := range spikiest(m.Graph, y, nearestCandidates) {
		z := append([]float64(nil), y...)
		z[i] = neighbourMean(m.Graph, y, i)
		f, err := m.Certifier.Fit(z)
		var mm *recovery.MismatchError
		if err != nil && (!errors.As(err, &mm) || mm.NoSignal || mm.Precision) {
			continue
		}
		if !ok || f.Cos > best.Cos {
			best, ok = f, true
		}
	}
	switch {
	case mismatch == nil:
		return fit.Node, nil, nil // inside the model: the certified fit
	case !ok:
		return 0, mismatch, nil
	}
	return best.Node, mismatch, nil
}

// nearestCandidates is how many of the spikiest sensors fitNearest tries
// to read as their neighbours' mean.
const nearestCandidates = 3

// spikiest returns the k sensors whose readings differ most from their
// neighbours' mean (a stuck, dead or saturated sensor is one of them).
func spikiest(g *laplacian.Graph, y []float64, k int) []int {
	idx := make([]int, 0, k+1)
	gap := func(i int) float64 { return math.Abs(y[i] - neighbourMean(g, y, i)) }
	for i := range y {
		idx = append(idx, i)
		for j := len(idx) - 1; j > 0 && gap(idx[j]) > gap(idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
		if len(idx) > k {
			idx = idx[:k]
		}
	}
	return idx
}

// neighbourMean is the mean reading of i's neighbours (y[i] when it has
// none).
func neighbourMean(g *laplacian.Graph, y []float64, i int) float64 {
	cols, _ := g.Neighbors(i)
	if len(cols) == 0 {
		return y[i]
	}
	s := 0.0
	for _, j := range cols {
		s += y[j]
	}
	return s / float64(len(cols))
}

// answerModel returns req.Model, or builds it on the request's partition
// (Leiden when none).
func answerModel(ctx context.Context, req Request) (*Model, error) {
	if req.Model != nil {
		return req.Model, nil
	}
	part, names := req.Partition, req.Names
	if part == nil {
		var err error
		if part, err = community.Leiden(req.Graph, community.LeidenOptions{Seed: req.Seed}); err != nil {
			return nil, err
		}
		names = nil
	}
	return NewModel(ctx, req.Graph, req.Tau, part, names, recovery.CertifierOptions{Tol: req.FitTolerance, SensorNoise: req.SensorNoise})
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
