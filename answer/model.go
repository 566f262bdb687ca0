package answer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// Model is what a private answer needs of the public graph at τ:
// the certifier that fits readings to a source, the classes of sources no
// reading can tell apart, and the community geometry the mechanism runs
// on. When no two sources are merged the geometry is the graph's own;
// otherwise it is the quotient graph, one node per class (an edge where
// any member edge crosses two classes), each class in the community of
// most of its members. Every edge of the graph then joins two adjacent
// quotient nodes or stays inside one, so the mechanism's per-hop bound on
// the quotient holds on every edge of the graph, and confusing two members
// of a class costs nothing (docs/derivations.md §5).
type Model struct {
	Graph     *laplacian.Graph
	Tau       float64
	Certifier *recovery.Certifier
	Classes   *recovery.SourceClasses
	Geometry  *privacy.CommunityGeometry
	// Names are the community names under Geometry's canonical ids: the
	// partition's names, or its ids as text when it has none.
	Names []string
	// partID[c] is the partition's id of Geometry's community c: what is
	// published and recorded as the community's id (PartitionID).
	partID []int
	// quotient is the class graph (nil when every class is one node).
	quotient *laplacian.Graph
	// part and partNames are the partition the model was built with and
	// its names (by part's ids; may be nil).
	part      []int
	partNames []string
	// community[s] is node s's own community under Geometry's ids (−1
	// when no class holds a majority of it), for the audit's accuracy.
	community []int
	// fit is the tolerance or sensor-noise bound the model was asked for
	// (its certificate's key); restored: its pass came from a certificate.
	fit      fitKey
	restored bool
	// audits remembers Audit's results by calibration (deterministic in
	// the model and the calibration).
	mu     sync.Mutex
	audits map[privacy.AnswerCalibration]Audit
	// anyLosses remembers AnyPairLoss by calibration: every answer under
	// privacy.DriftAny checks it, and it reads every node's distribution.
	anyLosses map[privacy.AnswerCalibration]float64
}

// NewModel certifies τ on g (recovery.NewCertifier with opt: the
// fit tolerance, progress), runs the classes' audit (every source fitted)
// and builds the geometry of part (names by part's ids, may be nil) on the
// graph or its quotient.
func NewModel(ctx context.Context, g *laplacian.Graph, tau float64, part []int, names []string, opt recovery.CertifierOptions) (*Model, error) {
	cert, err := recovery.NewCertifier(ctx, g, tau, opt)
	if err != nil {
		return nil, err
	}
	sc, err := cert.Classes(ctx)
	if err != nil {
		return nil, err
	}
	m, err := answerModelOf(ctx, g, tau, cert, sc, part, names)
	if err == nil {
		m.fit = fitKeyOf(opt)
	}
	return m, err
}

// answerModelOf builds the geometry of part on g or on its quotient by sc.
func answerModelOf(ctx context.Context, g *laplacian.Graph, tau float64, cert *recovery.Certifier, sc *recovery.SourceClasses, part []int, names []string) (*Model, error) {
	var err error
	m := &Model{Graph: g, Tau: tau, Certifier: cert, Classes: sc, part: slices.Clone(part), partNames: slices.Clone(names)}
	geoGraph, geoPart := g, part
	if sc.Count < g.N() {
		if m.quotient, geoPart, err = quotient(g, sc, part); err != nil {
			return nil, err
		}
		geoGraph = m.quotient
	}
	if m.Geometry, err = privacy.NewCommunityGeometry(ctx, geoGraph, geoPart); err != nil {
		return nil, err
	}
	canonical := map[int]int{}
	for q, c := range geoPart {
		canonical[c] = m.Geometry.Community(q)
	}
	m.community = make([]int, g.N())
	for s, c := range part {
		if id, ok := canonical[c]; ok {
			m.community[s] = id
		} else {
			m.community[s] = -1
		}
	}
	// Published and printed under the partition's own names — its ids
	// when it has none (Leiden's, as communities and locate print them),
	// never the geometry's canonical ids.
	m.Names, m.partID = make([]string, m.Geometry.K()), make([]int, m.Geometry.K())
	for i, c := range geoPart {
		m.partID[m.Geometry.Community(i)] = c
		if names != nil {
			m.Names[m.Geometry.Community(i)] = names[c]
		} else {
			m.Names[m.Geometry.Community(i)] = strconv.Itoa(c)
		}
	}
	return m, nil
}

// PartitionID is the partition's id of the geometry's community c.
func (m *Model) PartitionID(c int) int { return m.partID[c] }

// inPartitionIDs renames rep's communities, a ranking on the geometry, by
// the partition's ids, as locate and communities number them.
func (m *Model) inPartitionIDs(rep *community.Report) {
	for i := range rep.Communities {
		rep.Communities[i].ID = m.partID[rep.Communities[i].ID]
	}
}

// sizeInNodes makes the sizes of rep, a ranking on the geometry (on the
// class graph when sources merge), count the graph's nodes: a node counts
// in its class's community, as the answer counts it. A report's SIZE is
// nodes wherever it is printed.
func (m *Model) sizeInNodes(rep *community.Report) {
	size := make([]int, m.Geometry.K())
	for s := range m.Graph.N() {
		q := s
		if m.quotient != nil {
			q = m.Classes.Class[s]
		}
		size[m.Geometry.Community(q)]++
	}
	for i := range rep.Communities {
		rep.Communities[i].Size = size[rep.Communities[i].ID]
	}
}

// quotient returns the class graph of g and its partition: each class in
// the community of most of its members (ties to the smallest id).
func quotient(g *laplacian.Graph, sc *recovery.SourceClasses, part []int) (*laplacian.Graph, []int, error) {
	keys := make([]string, sc.Count)
	votes := make([]map[int]int, sc.Count)
	for i := g.N() - 1; i >= 0; i-- {
		// The smallest key names the class: the same name whatever order
		// the graph was read in (stored calibrations are keyed by it).
		q := sc.Class[i]
		if k := g.Key(i); keys[q] == "" || k < keys[q] {
			keys[q] = k
		}
		if votes[q] == nil {
			votes[q] = map[int]int{}
		}
		votes[q][part[i]]++
	}
	qpart := make([]int, sc.Count)
	for q, v := range votes {
		best, bestN := -1, 0
		for c, k := range v {
			if k > bestN || (k == bestN && c < best) {
				best, bestN = c, k
			}
		}
		qpart[q] = best
	}
	var edges []laplacian.Edge
	seen := map[[2]int32]bool{}
	g.ForEachEdge(func(i, j int, _ float64) {
		a, b := int32(sc.Class[i]), int32(sc.Class[j])
		if a == b {
			return
		}
		if a > b {
			a, b = b, a
		}
		if !seen[[2]int32{a, b}] {
			seen[[2]int32{a, b}] = true
			edges = append(edges, laplacian.Edge{U: a, V: b, Weight: 1})
		}
	})
	q, err := laplacian.FromEdges(sc.Count, keys, edges, laplacian.Options{})
	return q, qpart, err
}

// NoiseDelta is δ₀ of an answer on m: the probability bound that the
// stated Gaussian sensor noise, at recovery.NoiseMargin times its rms,
// leaves the model (0 without a stated noise).
func (m *Model) NoiseDelta() float64 {
	return m.Certifier.NoiseDelta(m.fit.noise, recovery.NoiseMargin)
}

// node maps a graph node to its node in Geometry (its class on a quotient).
func (m *Model) node(i int) int {
	if m.quotient == nil {
		return i
	}
	return m.Classes.Class[i]
}

// Audit is the end-to-end check of a private answer on the graph it
// runs on: the certifier's fit of every source's noiseless readings, and
// the privacy loss of the published distributions over every edge.
type Audit struct {
	Tau          float64 `json:"tau"`
	FitTolerance float64 `json:"fitTolerance"`
	// MaxBackground is the model's bound B on a constant background per
	// sensor, as a multiple of the source's mean reading μ/n (n·|β| ≤ B·μ):
	// readings beyond it are outside the model (their rounding would swamp
	// the source signal).
	MaxBackground float64 `json:"maxBackground"`
	// SensorNoiseBound is the model's bound ν on sensor noise (its mean
	// removed): rms up to ν times the source's mean reading μ/n, the same at
	// every source (recovery.Certifier.NoiseBound). Readings within it and
	// MaxBackground are answered at every source, never refused, and moving
	// the source never changes that.
	SensorNoiseBound float64 `json:"sensorNoiseBound"`
	// SensorNoise is the stated Gaussian rms ν the model was widened for
	// (0: none stated, the model of noiseless readings up to T), and
	// SensorNoiseDelta δ₀, a proven upper bound on the probability that
	// Gaussian noise of recovery.NoiseMargin (1.5) times that rms leaves
	// the model — the same at every source, so the whole answer (refusal
	// and randomized response included) is (ε, δ₀)-DP, and δ₀ is charged.
	// SensorNoiseDeltaAtStated is the same bound at the stated rms itself.
	SensorNoise              float64 `json:"sensorNoise,omitempty"`
	SensorNoiseDelta         float64 `json:"sensorNoiseDelta"`
	SensorNoiseDeltaAtStated float64 `json:"sensorNoiseDeltaAtStated,omitempty"`
	// SensorNoiseExit is the probability that Gaussian noise of 1, 1.5,
	// 2 and 3 times the stated rms leaves the model (exact tails,
	// recovery.NoiseExitCurve): where the guarantee's edge is.
	SensorNoiseExit []recovery.NoiseExit `json:"sensorNoiseExit,omitempty"`
	// Restored: the pass's counts (SourcesChecked, Refused, Misplaced,
	// Classes) come from a certificate sealed under the ledger key or this
	// installation's key; the refit sample and every edge's loss were
	// computed by this run. False: all of it was computed by this run.
	Restored bool `json:"restored"`
	// SourcesChecked sources' noiseless readings were fitted (every node);
	// Refused of them were refused and Misplaced fitted outside their
	// class (0 and 0 when sound). SourcesRefitted of them were fitted
	// again by the recovery itself, end to end (an evenly spread sample:
	// every node on small graphs), RefitFailures of those refused or
	// misplaced (0 when sound).
	SourcesChecked  int `json:"sourcesChecked"`
	Refused         int `json:"refused"`
	Misplaced       int `json:"misplaced"`
	SourcesRefitted int `json:"sourcesRefitted"`
	RefitFailures   int `json:"refitFailures"`
	// Classes of sources (= nodes when none merged); NodesMerged nodes
	// sit in classes of two or more and share one answer distribution.
	Classes     int `json:"classes"`
	NodesMerged int `json:"nodesMerged"`
	// EdgesChecked edges; WorstLoss the largest max_o |ln P(o|s)/P(o|t)|
	// over them, Bound = ε/⌈α⌉ the per-hop guarantee.
	EdgesChecked int     `json:"edgesChecked"`
	WorstLoss    float64 `json:"worstLoss"`
	Bound        float64 `json:"bound"`
	Passed       bool    `json:"passed"`
	// Accuracy is the chance that the answer names the source's own
	// community, for a source drawn uniformly from the graph's nodes and
	// its noiseless readings: exact when the audit passed (every such
	// reading is fitted to its source's class), so it is what this
	// calibration delivers inside the model.
	Accuracy float64 `json:"accuracy"`
	// In90Rate is the chance that the source's own community is in the
	// analyst's 90 % set for the answer (the smallest set of communities
	// holding 90 % of the posterior given it, AnswerPosterior), and
	// In90Size that set's mean size, for the same uniform source and its
	// noiseless readings: what a simulation of the answer estimates,
	// computed over every source and every answer.
	In90Rate float64 `json:"in90Rate"`
	In90Size float64 `json:"in90Size"`
	// own[s] is node s's term of Accuracy: the chance that the answer to
	// its noiseless readings names its own community (OwnCommunity).
	own []float64
}

// OwnCommunity returns, for every node s of the graph, the chance that the
// answer to s's noiseless readings names s's own community (0 when no
// class holds a majority of it): Accuracy is their mean, and their mean
// over a community is its exact rate.
func (a *Audit) OwnCommunity() []float64 { return a.own }

// KeptAudit is an Audit as a file keeps it: every field and each node's
// OwnCommunity term, so that the audit read back is the one computed.
type KeptAudit struct {
	Audit Audit     `json:"audit"`
	Own   []float64 `json:"ownCommunity"`
}

// Kept returns a's kept form.
func (a *Audit) Kept() KeptAudit { return KeptAudit{Audit: *a, Own: a.own} }

// Restore returns the audit k keeps, marked Restored: none of it was
// computed by this run.
func (k KeptAudit) Restore() *Audit {
	a := k.Audit
	a.own, a.Restored = k.Own, true
	return &a
}

// auditSlack allows the audit's own float64 evaluation of the logs.
const auditSlack = 1e-9

// Audit checks cal on every edge of the graph: for adjacent s, t it
// evaluates both published distributions (on their classes) and takes the
// largest log-ratio over outputs, on GOMAXPROCS goroutines. It passes when
// every source was fitted to its class and the loss is ≤ ε/⌈α⌉.
func (m *Model) Audit(ctx context.Context, cal privacy.AnswerCalibration) (*Audit, error) {
	m.mu.Lock()
	a, ok := m.audits[cal]
	m.mu.Unlock()
	if ok {
		return &a, nil
	}
	audit, err := m.audit(ctx, cal)
	if err == nil {
		m.mu.Lock()
		if m.audits == nil {
			m.audits = map[privacy.AnswerCalibration]Audit{}
		}
		m.audits[cal] = *audit
		m.mu.Unlock()
	}
	return audit, err
}

// audit is Audit without the memory.
func (m *Model) audit(ctx context.Context, cal privacy.AnswerCalibration) (*Audit, error) {
	sc := m.Classes
	a := &Audit{Tau: m.Tau, FitTolerance: m.Certifier.Tol(), MaxBackground: m.Certifier.MaxBackground(),
		SensorNoiseBound: m.Certifier.NoiseBound(), SensorNoise: m.fit.noise, SensorNoiseDelta: m.NoiseDelta(),
		SensorNoiseDeltaAtStated: m.Certifier.NoiseDelta(m.fit.noise, 1), SensorNoiseExit: m.Certifier.NoiseExitCurve(m.fit.noise), Restored: m.restored, SourcesChecked: sc.SourcesChecked, Refused: sc.Refused,
		Misplaced: sc.Misplaced, SourcesRefitted: sc.SourcesRefitted, RefitFailures: sc.RefitFailures, Classes: sc.Count, NodesMerged: sc.Merged, EdgesChecked: m.Graph.NumEdges(),
		Bound: cal.Epsilon / math.Ceil(cal.Alpha)}
	workers := max(1, runtime.GOMAXPROCS(0))
	lp, err := m.logProbabilitiesOf(ctx, cal, workers)
	if err != nil {
		return nil, err
	}
	byAnswer := false
	if lp == nil {
		if byAnswer, err = m.auditByAnswer(ctx, cal, a, workers); err != nil {
			return nil, err
		}
		if !byAnswer {
			cg := m.Geometry
			lp = func(v int) []float64 { return logProbabilities(cal, cg, v) }
		}
	}
	if !byAnswer {
		if err := m.auditEdges(ctx, cal, a, lp, workers); err != nil {
			return nil, err
		}
	}
	a.Passed = a.Refused == 0 && a.Misplaced == 0 && a.RefitFailures == 0 && a.WorstLoss <= a.Bound*(1+auditSlack)
	return a, nil
}

// auditEdges sets a's WorstLoss, Accuracy (each node's own term) and
// In90 from lp, every node's log-probabilities, on workers goroutines.
func (m *Model) auditEdges(ctx context.Context, cal privacy.AnswerCalibration, a *Audit, lp func(v int) []float64, workers int) error {
	n := m.Graph.N()
	worst := make([]float64, workers)
	a.own = make([]float64, n)
	var wg sync.WaitGroup
	rowPtr, col, _ := m.Graph.CSR()
	var cancelled error
	var once sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for s := w; s < n; s += workers {
				if s%256 == w && ctx.Err() != nil {
					once.Do(func() { cancelled = ctx.Err() })
					return
				}
				ps := lp(m.node(s))
				if c := m.community[s]; c >= 0 {
					a.own[s] = math.Exp(ps[c])
				}
				for e := rowPtr[s]; e < rowPtr[s+1]; e++ {
					t := int(col[e])
					if t < s || m.node(t) == m.node(s) {
						continue
					}
					pt := lp(m.node(t))
					for o := range ps {
						worst[w] = max(worst[w], math.Abs(ps[o]-pt[o]))
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if cancelled != nil {
		return cancelled
	}
	a.WorstLoss = slices.Max(worst)
	a.Accuracy = m.accuracy(a.own, workers)
	var err error
	a.In90Rate, a.In90Size, err = m.in90(ctx, cal, lp)
	return err
}

// accuracy is the mean of own over the nodes with a community, summed as
// the audit's workers sum it (node s by worker s mod workers, then the
// workers in turn): the same number whichever way own was computed.
func (m *Model) accuracy(own []float64, workers int) float64 {
	n := len(own)
	acc := 0.0
	for w := range workers {
		right := 0.0
		for s := w; s < n; s += workers {
			if m.community[s] >= 0 {
				right += own[s]
			}
		}
		acc += right / float64(n)
	}
	return acc
}

// in90 returns the audit's In90Rate and In90Size: for every node s and
// answer o, P(o | s) times whether s's own community is in o's 90 % set,
// and times that set's size, averaged over the nodes.
func (m *Model) in90(ctx context.Context, cal privacy.AnswerCalibration, lp func(v int) []float64) (rate, size float64, err error) {
	in, sizes, err := m.top90Sets(ctx, cal)
	if err != nil {
		return 0, 0, err
	}
	for s := range m.Graph.N() {
		own := m.community[s]
		for o, l := range lp(m.node(s)) {
			p := math.Exp(l)
			if own >= 0 && in[o][own] {
				rate += p
			}
			size += p * sizes[o]
		}
	}
	n := float64(m.Graph.N())
	return rate / n, size / n, nil
}

// top90Sets returns, for every answer o, which communities its 90 % set
// holds (recovery.Top90 of its posterior) and the set's size.
func (m *Model) top90Sets(ctx context.Context, cal privacy.AnswerCalibration) (in [][]bool, sizes []float64, err error) {
	k := m.Geometry.K()
	post, err := cal.AnswerPosteriors(ctx, m.Geometry)
	if err != nil {
		return nil, nil, err
	}
	in, sizes = make([][]bool, k), make([]float64, k)
	for o := range in {
		set := recovery.Top90(post[o])
		in[o] = make([]bool, k)
		for _, c := range set {
			in[o][c] = true
		}
		sizes[o] = float64(len(set))
	}
	return in, sizes, nil
}

// memoEntries bounds the log-probabilities the audit keeps (8 bytes each):
// 2^25 is 256 MiB, 10⁵ sources of 335 communities.
const memoEntries = 1 << 25

// logProbabilitiesOf returns the published log-probabilities of each
// geometry node: computed for every node at once, on workers goroutines,
// when they fit in memoEntries (privacy.ProbabilitiesEverywhere: for the
// envelope mechanism one search per community, not per node) — an edge
// reads both of its ends', and computing them per edge evaluated each
// node deg+1 times — else nil (the audit then runs one answer at a time,
// auditByAnswer).
func (m *Model) logProbabilitiesOf(ctx context.Context, cal privacy.AnswerCalibration, workers int) (func(v int) []float64, error) {
	cg := m.Geometry
	nv := cg.N()
	if nv*(cg.K()+1) > memoEntries {
		return nil, nil
	}
	memo, err := cal.ProbabilitiesEverywhere(ctx, cg, workers)
	if err != nil {
		return nil, err
	}
	for _, p := range memo {
		for o, v := range p {
			p[o] = math.Log(v)
		}
	}
	return func(v int) []float64 { return memo[v] }, nil
}

func logProbabilities(cal privacy.AnswerCalibration, cg *privacy.CommunityGeometry, s int) []float64 {
	p := cal.ProbabilitiesAt(cg, s)
	for o, v := range p {
		p[o] = math.Log(v)
	}
	return p
}

// AuditError refuses an answer whose audit failed (nothing is charged).
type AuditError struct{ Audit *Audit }

func (e *AuditError) Error() string {
	a := e.Audit
	return fmt.Sprintf("graphcloak: the private answer's audit failed at τ = %g: worst loss %.6g over %d edges (bound %.6g), %d of %d sources refused, %d fitted outside their class, %d of %d refits failed; nothing was charged",
		a.Tau, a.WorstLoss, a.EdgesChecked, a.Bound, a.Refused, a.SourcesChecked, a.Misplaced, a.RefitFailures, a.SourcesRefitted)
}

// Kind: an audit that fails refuses the job's input (errkind.BadInput).
func (*AuditError) Kind() errkind.Kind { return errkind.BadInput }
