package answer

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// klBernoulli is KL(q ‖ p) of Bernoulli distributions.
func klBernoulli(q, p float64) float64 {
	kl := 0.0
	if q > 0 {
		kl += q * math.Log(q/p)
	}
	if q < 1 {
		kl += (1 - q) * math.Log((1-q)/(1-p))
	}
	return kl
}

// binomialBounds returns a confidence interval [lo, hi] for p from k
// successes in n Bernoulli(p) draws, each side failing with probability at
// most beta: the Chernoff–Hoeffding bound P(X ≥ k) ≤ exp(−n·KL(k/n ‖ p))
// for p < k/n (and its mirror), inverted by bisection.
func binomialBounds(k, n int, beta float64) (lo, hi float64) {
	q := float64(k) / float64(n)
	target := math.Log(1/beta) / float64(n)
	solve := func(a, b float64, inside func(p float64) bool) float64 {
		for range 200 {
			m := (a + b) / 2
			if inside(m) {
				b = m
			} else {
				a = m
			}
		}
		return b
	}
	lo, hi = 0, 1
	if k > 0 {
		// the smallest p with KL(q ‖ p) ≤ target, p ≤ q
		lo = solve(0, q, func(p float64) bool { return klBernoulli(q, p) <= target })
		lo = math.Max(0, lo-1e-15)
	}
	if k < n {
		// the largest p ≥ q with KL(q ‖ p) ≤ target
		hi = 1 - solve(0, 1-q, func(r float64) bool { return klBernoulli(q, 1-r) <= target })
		hi = math.Min(1, hi+1e-15)
	}
	return lo, hi
}

func TestBinomialBounds(t *testing.T) {
	// Oracle: at k = 0 the upper bound solves (1−p)^n = β exactly.
	_, hi := binomialBounds(0, 1000, 1e-6)
	if want := 1 - math.Pow(1e-6, 1.0/1000); math.Abs(hi-want) > 1e-9 {
		t.Errorf("0 of 1000: upper %g, want %g", hi, want)
	}
	lo, hi := binomialBounds(500, 1000, 1e-6)
	if !(lo < 0.5 && hi > 0.5 && lo > 0.35 && hi < 0.65) {
		t.Errorf("500 of 1000: [%g, %g]", lo, hi)
	}
}

// noiseDraws is the number of Gaussian noise draws per source of
// TestAnswerGaussianNoiseOracle: GRAPHCLOAK_NOISE_DRAWS, else 2 000 on
// karate and 150 on the larger graphs (scripts/noise_oracle.sh runs 2 000
// everywhere).
func noiseDraws(n int) int {
	if v, err := strconv.Atoi(os.Getenv("GRAPHCLOAK_NOISE_DRAWS")); err == nil && v > 0 {
		return v
	}
	if n <= 40 {
		return 2000
	}
	return 150
}

// TestAnswerGaussianNoiseOracle (issue 70, item 2): the operator states
// Gaussian sensor noise of rms ν (0.5% and 2% of the mean reading), and the
// sensors' real noise is drawn afresh — i.i.d. N(0, (h·ν·μ/n)²) per sensor,
// mean not removed — at h = 1, 1.1 and 1.5 times that rms. For every source
// the real decision (Model.FitReadings: answered, refused, or randomized
// response) is run on each draw, and the published output's distribution
// is estimated: the decision's frequency, and the answered community's
// probabilities averaged over the draws (exact per draw). For every edge
// s ~ t and every output S the test checks, with confidence intervals
// (Chernoff–KL for the decisions, Hoeffding for the communities),
//
//	P_s(S) ≤ e^ε·P_t(S) + δ₀,   δ₀ = the answer's printed δ (Audit),
//
// the whole output, decision included, and that no source is refused
// more often than δ₀ allows. δ₀ ≤ 10⁻⁵ (the default a release would
// configure). Before the model was widened for Gaussian noise, karate at
// ε = 1 refused source 8 on ~35% of draws and its neighbour 0 never.
func TestAnswerGaussianNoiseOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of fits per source")
	}
	ctx := context.Background()
	const tau, mass, beta = 1.0, 3.0, 1e-7
	for _, gc := range decisionGraphs(t) {
		g, n := gc.g, gc.g.N()
		part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		heat := heattest.PadeHeat(g, tau)
		draws := noiseDraws(n)
		for _, nu := range []float64{0.005, 0.02} {
			model, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{SensorNoise: nu})
			var mre *recovery.ModelRangeError
			if errors.As(err, &mre) {
				// Refused from the public graph, τ and ν alone: nothing is
				// published whatever the readings.
				t.Logf("%s ν=%g: refused from the graph: %v", gc.name, nu, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s ν=%g: %v", gc.name, nu, err)
			}
			delta := model.NoiseDelta()
			if !(delta <= 1e-5) {
				t.Fatalf("%s ν=%g: δ₀ = %g > 1e-5", gc.name, nu, delta)
			}
			for _, eps := range gc.eps {
				cal, err := privacy.CalibrateAnswer(ctx, model.Geometry, eps, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if a, err := model.Audit(ctx, cal); err != nil || !a.Passed || a.SensorNoiseDelta != delta {
					t.Fatalf("%s ν=%g ε=%g: audit %+v (%v), δ₀ %g", gc.name, nu, eps, a, err, delta)
				}
				rr, err := privacy.CalibrateAnswer(ctx, model.Geometry, eps, 1, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range []float64{1, 1.1, 1.5} {
					checkGaussianNoise(t, gaussCase{name: gc.name, g: g, model: model, cal: cal, rr: rr, heat: heat,
						nu: nu, h: h, eps: eps, mass: mass, delta: delta, draws: draws, beta: beta})
				}
			}
		}
	}
}

type gaussCase struct {
	name                    string
	g                       *laplacian.Graph
	model                   *Model
	cal, rr                 privacy.AnswerCalibration
	heat                    interface{ At(i, j int) float64 }
	nu, h, eps, mass, delta float64
	draws                   int
	beta                    float64
}

func checkGaussianNoise(t *testing.T, c gaussCase) {
	t.Helper()
	g, n, m := c.g, c.g.N(), c.model
	k := m.Geometry.K()
	sd := c.h * c.nu * c.mass / float64(n)
	refused := make([]int, n)
	// answered[s][o]: mean over draws of P(o | fit) when the fit is
	// accepted (0 otherwise); byRR[s][o] the same for randomized response.
	answered, byRR := make([][]float64, n), make([][]float64, n)
	// The published distributions depend on the fitted node only: memoised.
	memo := map[[2]int][]float64{}
	probs := func(rr bool, v int) []float64 {
		key := [2]int{0, v}
		cal := c.cal
		if rr {
			key[0], cal = 1, c.rr
		}
		if p, ok := memo[key]; ok {
			return p
		}
		p := cal.ProbabilitiesAt(m.Geometry, v)
		memo[key] = p
		return p
	}
	y := make([]float64, n)
	for s := 0; s < n; s++ {
		answered[s], byRR[s] = make([]float64, k), make([]float64, k)
		rng := rand.New(rand.NewPCG(uint64(s)+1, math.Float64bits(c.nu*c.h*c.eps)))
		for range c.draws {
			for i := range y {
				y[i] = c.mass*c.heat.At(i, s) + sd*rng.NormFloat64()
			}
			node, mm, err := m.FitReadings(y, MismatchRandomizedResponse)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if mm != nil {
				refused[s]++
				for o, p := range probs(true, m.node(node)) {
					byRR[s][o] += p / float64(c.draws)
				}
				continue
			}
			for o, p := range probs(false, m.node(node)) {
				answered[s][o] += p / float64(c.draws)
			}
		}
	}
	// Every check below fails by chance with probability ≤ beta.
	tests := float64(g.NumEdges()*2*(2*k+1) + n)
	b := c.beta / tests
	hoeff := math.Sqrt(math.Log(1/b) / (2 * float64(c.draws)))
	bound := math.Exp(c.eps)
	worst, total := 0.0, 0
	for s := 0; s < n; s++ {
		total += refused[s]
		if lo, _ := binomialBounds(refused[s], c.draws, b); lo > c.delta {
			t.Errorf("%s ν=%g h=%g ε=%g: source %s left the model on %d of %d draws (≥ %.3g with confidence), more than δ₀ = %.3g",
				c.name, c.nu, c.h, c.eps, g.Key(s), refused[s], c.draws, lo, c.delta)
		}
	}
	g.ForEachEdge(func(s, u int, _ float64) {
		for _, e := range [][2]int{{s, u}, {u, s}} {
			a, z := e[0], e[1]
			// The decision: refused (or answered by RR) vs answered.
			loA, _ := binomialBounds(refused[a], c.draws, b)
			_, hiZ := binomialBounds(refused[z], c.draws, b)
			if loA > bound*hiZ+c.delta {
				t.Errorf("%s ν=%g h=%g ε=%g: edge %s→%s: P(refused) ≥ %.3g at %s, ≤ %.3g at %s: loss beyond (ε, δ₀ = %.3g)",
					c.name, c.nu, c.h, c.eps, g.Key(a), g.Key(z), loA, g.Key(a), hiZ, g.Key(z), c.delta)
			}
			if refused[a] > 0 && refused[z] == 0 {
				worst = math.Inf(1)
			}
			// The communities, answered and by RR.
			for o := 0; o < k; o++ {
				if answered[a][o]-hoeff > bound*(answered[z][o]+hoeff)+c.delta ||
					byRR[a][o]-hoeff > bound*(byRR[z][o]+hoeff)+c.delta {
					t.Errorf("%s ν=%g h=%g ε=%g: edge %s→%s, community %d: %.4g / %.4g answered, %.4g / %.4g by RR (margin %.3g)",
						c.name, c.nu, c.h, c.eps, g.Key(a), g.Key(z), o, answered[a][o], answered[z][o], byRR[a][o], byRR[z][o], hoeff)
				}
				if answered[a][o] > 0 && answered[z][o] > 0 {
					worst = math.Max(worst, math.Log(answered[a][o]/answered[z][o]))
				}
			}
		}
	})
	t.Logf("%s ν=%g h=%g ε=%g: δ₀=%.3g (model bound %.4g, T=%.4g, %d classes), %d of %d readings refused, empirical worst loss %.4g over %d draws per source",
		c.name, c.nu, c.h, c.eps, c.delta, m.Certifier.NoiseBound(), m.Certifier.Tol(), m.Classes.Count, total, n*c.draws, worst, c.draws)
}

// TestBrokenReadingsOracle (issue 70, item 4): a reading that is not a
// number (NaN, ±Inf — missing and unreadable readings are read as NaN in
// private-answer mode) at any node is outside the model: refused with the
// one fixed sentence, charged like an answer (the charge comes before the
// readings are read: issue 77), or with --on-mismatch rr answered
// by randomized response with the fixed mismatch text. Over every node
// broken in turn, the refusal texts are one, and the published results
// (JSON, drawn community and posterior aside) are one: no published byte
// names the node. Only Diagnose names it.
func TestBrokenReadingsOracle(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	model, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	heat := heattest.PadeHeat(g, 1)
	refusals, results := map[string]int{}, map[string]int{}
	for i := 0; i < n; i++ {
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			y := make([]float64, n)
			for j := range y {
				y[j] = 3 * heat.At(j, (i+5)%n) // a source elsewhere
			}
			y[i] = bad
			led := ledger(t, 100, 1e-6)
			_, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Alpha: 1, Model: model, Partition: part,
				Ledger: led, Scope: "s", Epoch: "e", Noise: privacy.CryptoNoise()})
			var mm *recovery.MismatchError
			if !errors.As(err, &mm) {
				t.Fatalf("node %s broken: %v, want the out-of-model refusal", g.Key(i), err)
			}
			refusals[err.Error()]++
			if b, _ := led.Balance(ctx, "s"); b[0].Releases != 1 {
				t.Fatalf("node %s broken: the refusal charged %d releases, want 1 (charged before reading)", g.Key(i), b[0].Releases)
			}
			res, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Alpha: 1, Model: model, Partition: part, Diagnose: true,
				OnMismatch: MismatchRandomizedResponse, Ledger: led, Scope: "s", Epoch: "rr", Noise: privacy.CryptoNoise()})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExactSource || res.Mismatch != AnsweredByRR || !strings.Contains(res.Diagnosis, "node "+g.Key(i)+" ") {
				t.Fatalf("node %s broken: exactSource %v, mismatch %q, diagnosis %q", g.Key(i), res.ExactSource, res.Mismatch, res.Diagnosis)
			}
			res.ReleaseID, res.Millis, res.CommunityID, res.Community, res.Posterior, res.Diagnosis = "", 0, 0, "", nil, ""
			b, _ := json.Marshal(res)
			results[string(b)]++
		}
	}
	if len(refusals) != 1 || len(results) != 1 {
		t.Errorf("%d distinct refusal texts and %d distinct rr results over %d broken nodes, want 1 and 1: %v", len(refusals), len(results), n, refusals)
	}
	for text := range refusals {
		if text != "recovery: "+recovery.OutsideModel {
			t.Errorf("refusal text %q", text)
		}
	}
}

// TestAnswerChargesDelta: an answer under stated sensor noise publishes δ₀
// (Result.Delta, the audit's SensorNoiseDelta, > 0) and charges it to the
// answers' δ share; a ledger without a share refuses it before anything is
// drawn, naming the share; without --sensor-noise δ₀ = 0 on any ledger.
func TestAnswerChargesDelta(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	heat := heattest.PadeHeat(g, 1)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = 3 * heat.At(i, 4)
	}
	model, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := privacy.CreateFileLedger(ctx, t.TempDir()+"/l.json", privacy.Budget{Epsilon: 8, Delta: 1e-6, AnswerDelta: 1e-7}, privacy.FileLedgerOptions{}, "s")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Model: model, Partition: part, Ledger: shared, Scope: "s", Epoch: "e", Noise: privacy.CryptoNoise()})
	if err != nil {
		t.Fatal(err)
	}
	bal, _ := shared.Balance(ctx, "s")
	if !(res.Delta > 0) || res.Delta != res.Audit.SensorNoiseDelta || res.Delta > recovery.NoiseExitTarget || bal[0].AnswerDeltaSpent != res.Delta {
		t.Errorf("δ₀ %g, audit %g, charged %g", res.Delta, res.Audit.SensorNoiseDelta, bal[0].AnswerDeltaSpent)
	}
	plain := ledger(t, 8, 1e-6)
	_, err = Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Model: model, Partition: part, Ledger: plain, Scope: "s", Epoch: "e", Noise: privacy.CryptoNoise()})
	var be *privacy.BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), string(privacy.ParamAnswerDeltaShare)) {
		t.Fatalf("no δ share: %v", err)
	}
	if b, _ := plain.Balance(ctx, "s"); b[0].Releases != 0 {
		t.Error("the refused answer was charged")
	}
	noiseless, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Model: noiseless, Partition: part, Ledger: plain, Scope: "s", Epoch: "e2", Noise: privacy.CryptoNoise()})
	if err != nil || res.Delta != 0 {
		t.Fatalf("noiseless answer: δ %v, %v", res, err)
	}
}
