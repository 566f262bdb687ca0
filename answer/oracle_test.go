package answer

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

type oracleCase struct {
	name    string
	g       *laplacian.Graph
	tau     float64
	eps     float64
	masses  []float64
	sources int // 1 (in the model) or 2 (outside it)
	cap     int
}

// TestAnswerGuaranteeOracle replays the table and more: for every
// source s (every pair of sources for two-source rows) the readings are
// μ·exp(−τL)e_s computed by an independent expm; the real preparation of
// the answer (certified fit, classes, calibration, audit) gives the
// published distribution, or a refusal. Over every edge s ~ t of the graph
// the loss max_o |ln P(o|y_s) − ln P(o|y_t)| must be ≤ ε/⌈α⌉, and inside
// the model a refusal must be the same for every source (decided from the
// graph alone), never per source.
func TestAnswerGuaranteeOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over sources")
	}
	karate, _ := laplacian.Karate()
	pa, err := laplacian.PreferentialAttachment(300, 2, 11)
	if err != nil {
		t.Fatal(err)
	}
	geo, _, err := laplacian.RandomGeometric(150, 0.18, 5)
	if err != nil {
		t.Fatal(err)
	}
	hub := heattest.HubArmsPath(t)
	cases := []oracleCase{
		{"karate τ=30 ε=1 envelope", karate, 30, 1, []float64{1e-6, 1, 1e6}, 1, 0},
		{"karate τ=50 ε=4 geometric", karate, 50, 4, []float64{1}, 1, 3},
		{"karate τ=5 ε=1", karate, 5, 1, []float64{1e-6, 1, 1e6}, 1, 0},
		{"karate τ=0.01 ε=4", karate, 0.01, 4, []float64{1, 100}, 1, 0},
		{"hub+arms+path τ=100 ε=1", hub, 100, 1, []float64{1}, 1, 0},
		{"hub+arms+path τ=1 ε=1", hub, 1, 1, []float64{1, 1e6}, 1, 0},
		{"PA300 τ=1 ε=1 mass 100", pa, 1, 1, []float64{100}, 1, 0},
		{"PA300 τ=1 ε=1 mass 0.01", pa, 1, 1, []float64{0.01}, 1, 0},
		{"PA300 τ=1 ε=1 two sources", pa, 1, 1, []float64{1}, 2, 0},
		{"geometric τ=3 ε=2", geo, 3, 2, []float64{1e-6, 1e6}, 1, 0},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			part, err := community.Leiden(tc.g, community.LeidenOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			model, err := NewModel(ctx, tc.g, tc.tau, part, nil, recovery.CertifierOptions{})
			var mre *recovery.ModelRangeError
			if errors.As(err, &mre) {
				t.Logf("refused from the graph alone: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			heat := heattest.PadeHeat(tc.g, tc.tau)
			n := tc.g.N()
			for _, mass := range tc.masses {
				dist, refused := make([][]float64, n), 0
				for s := 0; s < n; s++ {
					y := make([]float64, n)
					for i := range y {
						y[i] = mass * heat.At(i, s)
						if tc.sources == 2 { // a second source across the graph
							y[i] += mass * heat.At(i, (s+n/2)%n)
						}
					}
					d, err := prepareAnswer(ctx, Request{Graph: tc.g, Values: y, Tau: tc.tau, Epsilon: tc.eps, Alpha: 1, Cap: tc.cap, Model: model})
					var aerr *AuditError
					switch {
					case errors.As(err, &aerr):
						t.Logf("audit refused: %v", err)
						return
					case err != nil && tc.sources == 1:
						t.Fatalf("mass %g source %d inside the model refused: %v", mass, s, err)
					case err != nil:
						refused++
						continue
					}
					dist[s] = d.cal.ProbabilitiesAt(model.Geometry, d.hat)
				}
				worst, checked := 0.0, 0
				tc.g.ForEachEdge(func(s, u int, _ float64) {
					if dist[s] == nil || dist[u] == nil {
						return
					}
					checked++
					for o := range dist[s] {
						worst = math.Max(worst, math.Abs(math.Log(dist[s][o])-math.Log(dist[u][o])))
					}
				})
				if worst > tc.eps*(1+1e-9) {
					t.Errorf("mass %g: worst loss over %d edges %.6g > ε = %g", mass, checked, worst, tc.eps)
				}
				if tc.sources == 1 && model.Classes.Count == n {
					checkAuditAccuracy(t, ctx, model, tc.eps, tc.cap, dist)
				}
				t.Logf("mass %g: worst loss %.4f ≤ %g over %d edges; %d classes of %d; %d refused", mass, worst, tc.eps, checked,
					model.Classes.Count, n, refused)
			}
		})
	}
}

// checkAuditAccuracy: with no class merged, the audit's accuracy must be
// the mean over sources of the probability that the answer drawn for the
// source's noiseless readings (dist, from the real recovery) names the
// source's community.
func checkAuditAccuracy(t *testing.T, ctx context.Context, model *Model, eps float64, capDist int, dist [][]float64) {
	t.Helper()
	cal, err := privacy.CalibrateAnswer(ctx, model.Geometry, eps, 1, capDist)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := model.Audit(ctx, cal)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for s, d := range dist {
		want += d[model.Geometry.Community(s)] / float64(len(dist))
	}
	if math.Abs(audit.Accuracy-want) > 1e-12 {
		t.Errorf("audit accuracy %.15g, the answers' own %.15g", audit.Accuracy, want)
	}
}

// TestAnswerMismatchSurfaces: readings of two sources are refused by
// default in the fixed text (charged like an answer, before the readings
// are read: issue 77; the measured reason only with Diagnose), and answered by randomized response with --on-mismatch rr,
// the fixed AnsweredByRR in the result.
func TestAnswerMismatchSurfaces(t *testing.T) {
	g, part := laplacian.Karate()
	heat := heattest.PadeHeat(g, 1)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = heat.At(i, 0) + heat.At(i, 33)
	}
	ctx := context.Background()
	led := ledger(t, 100, 1e-6)
	_, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Partition: part, Ledger: led, Scope: "s", Epoch: "e1"})
	var mm *recovery.MismatchError
	if !errors.As(err, &mm) || mm.Residual <= mm.Tol || err.Error() != "recovery: "+recovery.OutsideModel {
		t.Fatalf("two sources: got %v, want a mismatch with residual > tolerance in the fixed text", err)
	}
	_, err = Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Partition: part, Ledger: led, Scope: "s", Epoch: "e1d", Diagnose: true})
	if !errors.As(err, &mm) || !(mm.TwoSourceResidual <= mm.Tol) || !strings.Contains(mm.Diagnosis(), "two sources") {
		t.Errorf("the diagnosis should say two sources explain the readings: %v", err)
	}
	if bal, _ := led.Balance(ctx, "s"); len(bal) != 1 || bal[0].Releases != 2 {
		t.Fatalf("two refused answers: %+v, want 2 charges", bal)
	}
	res, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Partition: part, Ledger: led, Scope: "s", Epoch: "e2",
		OnMismatch: MismatchRandomizedResponse})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExactSource || res.Mismatch != AnsweredByRR || res.Diagnosis != "" || res.Calibration.Mechanism != "randomized-response" {
		t.Fatalf("rr answer: exact %v, mismatch %q, mechanism %s", res.ExactSource, res.Mismatch, res.Calibration.Mechanism)
	}
	// In the model with a 1% background and sensor noise below the
	// tolerance: answered as certified, no false alarm.
	for i := range y {
		y[i] = 3*heat.At(i, 5) + 0.01 + 1e-5*math.Sin(float64(i))
	}
	res, err = Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Partition: part, Ledger: led, Scope: "s", Epoch: "e3"})
	if err != nil || !res.ExactSource || res.Mismatch != "" {
		t.Fatalf("in-model readings with background: %v %+v", err, res)
	}
}

// An answer at a τ where sources merge runs on the quotient graph end to
// end: the published community is one of the partition's names, the
// analyst's posterior covers the communities, the audit reports the
// merged classes, and the ledger is charged once.
func TestAnswerOnQuotient(t *testing.T) {
	g, part := laplacian.Karate()
	names := []string{"officer", "instructor"}
	for i := range part {
		part[i] %= 2
	}
	heat := heattest.PadeHeat(g, 5)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = 4 * heat.At(i, 16)
	}
	led := ledger(t, 100, 1e-6)
	res, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 5, Epsilon: 2, Partition: part, Names: names,
		Ledger: led, Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Community != names[0] && res.Community != names[1] {
		t.Fatalf("published %q, not a community name", res.Community)
	}
	if res.Audit == nil || res.Audit.Classes >= g.N() || res.Audit.NodesMerged == 0 || !res.Audit.Passed || !res.ExactSource {
		t.Fatalf("audit %+v (exact %v): want merged classes at τ = 5", res.Audit, res.ExactSource)
	}
	total := 0.0
	for _, c := range res.Posterior.Communities {
		total += c.Share
	}
	if len(res.Posterior.Communities) == 0 || math.Abs(total-1) > 1e-9 {
		t.Fatalf("posterior %+v sums to %g", res.Posterior.Communities, total)
	}
	if bal, _ := led.Balance(context.Background(), "s"); len(bal) != 1 || bal[0].Releases != 1 {
		t.Fatalf("ledger %+v", bal)
	}
}

// The answer's posterior counts nodes in its SIZE (report size), as every
// ranking does, also where sources merge into classes (the geometry then
// runs on the class graph): the sizes add up to the graph's nodes, not to
// its classes, and each is its community's node count up to the nodes
// merged into a class of the other community.
func TestAnswerSizeCountsNodes(t *testing.T) {
	g, part := laplacian.Karate()
	names := []string{"officer", "instructor"}
	for i := range part {
		part[i] %= 2
	}
	heat := heattest.PadeHeat(g, 5)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = 4 * heat.At(i, 16)
	}
	res, err := Run(context.Background(), Request{Graph: g, Values: y, Tau: 5, Epsilon: 2, Partition: part, Names: names,
		Ledger: ledger(t, 100, 1e-6), Scope: "s", Epoch: "e"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Audit.Classes >= g.N() {
		t.Fatalf("fixture: %d classes of %d nodes, want merged sources", res.Audit.Classes, g.N())
	}
	nodes := map[string]int{}
	for _, c := range part {
		nodes[names[c]]++
	}
	total := 0
	for _, c := range res.Posterior.Communities {
		total += c.Size
		if d := c.Size - nodes[c.Name]; d < -res.Audit.NodesMerged || d > res.Audit.NodesMerged {
			t.Errorf("%s: size %d, its community has %d nodes (%d merged)", c.Name, c.Size, nodes[c.Name], res.Audit.NodesMerged)
		}
	}
	if total != g.N() {
		t.Errorf("sizes add up to %d, want the %d nodes (%d classes)", total, g.N(), res.Audit.Classes)
	}
}
