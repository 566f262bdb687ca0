package answer

import (
	"context"
	"fmt"
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

// A sensorFault turns the readings y = μ·a_s + e of a source into what
// imperfect sensors report (in place). It never looks at the source: the
// fault is the deployment's, the same whichever node is the source.
type sensorFault struct {
	name  string
	apply func(y []float64, rng *rand.Rand)
	// noise replaces the Gaussian noise (Student-t): nil keeps it.
	noise func(rng *rand.Rand) float64
}

// sensorFaults are the imperfections of issue 77 on g's sensors (named by node key) at h times
// their stated size (mass μ, stated rms ν of the mean reading): a sensor
// stuck at 0, saturated at full scale μ or missing (NaN; every every-th
// sensor in turn), an ADC of step h·μ/256 (8 bits at full scale μ), a fixed gain error of
// up to h·1 % per sensor, and Student-t(3) noise at h times the stated
// rms instead of Gaussian.
func sensorFaults(g *laplacian.Graph, mass, nu, h float64, every int) []sensorFault {
	n := g.N()
	var out []sensorFault
	if h == 1 {
		for k := 0; k < n; k++ {
			if k%every != 0 {
				continue
			}
			out = append(out,
				sensorFault{name: fmt.Sprint("stuck0@", g.Key(k)), apply: func(y []float64, _ *rand.Rand) { y[k] = 0 }},
				sensorFault{name: fmt.Sprint("saturated@", g.Key(k)), apply: func(y []float64, _ *rand.Rand) { y[k] = mass }},
				sensorFault{name: fmt.Sprint("missing@", g.Key(k)), apply: func(y []float64, _ *rand.Rand) { y[k] = math.NaN() }})
		}
	}
	q := h * mass / 256
	if h == 1 {
		for k := 0; k < n; k += every {
			out = append(out, sensorFault{name: fmt.Sprint("adc8+stuck0@", g.Key(k)), apply: func(y []float64, _ *rand.Rand) {
				for i := range y {
					y[i] = math.Round(y[i]/q) * q
				}
				y[k] = 0
			}})
		}
	}
	out = append(out, sensorFault{name: fmt.Sprintf("adc8×%g", h), apply: func(y []float64, _ *rand.Rand) {
		for i := range y {
			y[i] = math.Round(y[i]/q) * q
		}
	}})
	gain := make([]float64, n)
	rg := rand.New(rand.NewPCG(77, math.Float64bits(h)))
	for i := range gain {
		gain[i] = 1 + h*0.01*(2*rg.Float64()-1)
	}
	out = append(out, sensorFault{name: fmt.Sprintf("gain1%%×%g", h), apply: func(y []float64, _ *rand.Rand) {
		for i := range y {
			y[i] *= gain[i]
		}
	}})
	sd := h * nu * mass / float64(n) / math.Sqrt(3) // t(3) has variance 3
	out = append(out, sensorFault{name: fmt.Sprintf("t3×%g", h), apply: func([]float64, *rand.Rand) {}, noise: func(rng *rand.Rand) float64 {
		z := rng.NormFloat64()
		c := 0.0
		for range 3 {
			w := rng.NormFloat64()
			c += w * w
		}
		return sd * z / math.Sqrt(c/3)
	}})
	return out
}

// faultDraws is the noise draws per source of the imperfection oracle:
// GRAPHCLOAK_FAULT_DRAWS, else 300.
func faultDraws() int {
	if v, err := strconv.Atoi(os.Getenv("GRAPHCLOAK_FAULT_DRAWS")); err == nil && v > 0 {
		return v
	}
	return 300
}

// faultCentres draws the readings of every source under fault f with
// common random numbers (draw d has the same noise vector at every
// source: a coupling) and returns, per source and draw, the node of the
// model's geometry the answer is centred on under policy, −1 refused.
func faultCentres(t *testing.T, m *Model, heat interface{ At(i, j int) float64 }, f sensorFault,
	policy string, mass, nu float64, draws int) [][]int {
	return sampledCentres(t, m, heat, f, policy, mass, nu, draws, nil)
}

// sampledCentres is faultCentres at the sources only marks (nil: every
// source); the others' rows are nil, and every check skips the edges
// that touch them.
func sampledCentres(t *testing.T, m *Model, heat interface{ At(i, j int) float64 }, f sensorFault,
	policy string, mass, nu float64, draws int, only []bool) [][]int {
	t.Helper()
	n := m.Graph.N()
	sd := nu * mass / float64(n)
	out := make([][]int, n)
	y, e := make([]float64, n), make([]float64, n)
	for s := range out {
		if only == nil || only[s] {
			out[s] = make([]int, draws)
		}
	}
	for d := range draws {
		rng := rand.New(rand.NewPCG(uint64(d)+1, 77))
		for i := range e {
			e[i] = sd * rng.NormFloat64()
			if f.noise != nil {
				e[i] = f.noise(rng)
			}
		}
		for s := 0; s < n; s++ {
			if out[s] == nil {
				continue
			}
			for i := range y {
				y[i] = mass*heat.At(i, s) + e[i]
			}
			f.apply(y, rng)
			node, _, err := m.FitReadings(y, policy)
			if err != nil {
				out[s][d] = -1
				continue
			}
			out[s][d] = m.node(node)
		}
	}
	return out
}

// couplingCheck bounds the privacy loss over every edge s ~ t by the
// coupling of common noise: for each draw, the exact loss L between the
// published distributions at the two centres (∞ when one is refused and
// the other not). Then for every output set S,
//
//	P_s(S) ≤ e^ε·P_t(S) + P(L > ε),
//
// and P(L > ε) is bounded above with confidence 1 − b from the count of
// draws beyond ε (Chernoff–KL). It returns, over every edge, the largest
// count beyond, its upper bound and the largest L seen.
func couplingCheck(g *laplacian.Graph, m *Model, cal privacy.AnswerCalibration, centres [][]int, eps, b float64) (beyond int, deltaHi, worst float64) {
	probs := map[int][]float64{}
	at := func(v int) []float64 {
		if p, ok := probs[v]; ok {
			return p
		}
		p := cal.ProbabilitiesAt(m.Geometry, v)
		probs[v] = p
		return p
	}
	loss := map[[2]int]float64{}
	pair := func(v, w int) float64 {
		switch {
		case v == w:
			return 0
		case v < 0 || w < 0:
			return math.Inf(1)
		}
		if l, ok := loss[[2]int{v, w}]; ok {
			return l
		}
		l, pv, pw := 0.0, at(v), at(w)
		for o := range pv {
			l = math.Max(l, math.Abs(math.Log(pv[o]/pw[o])))
		}
		loss[[2]int{v, w}], loss[[2]int{w, v}] = l, l
		return l
	}
	draws := sampledDraws(centres)
	g.ForEachEdge(func(s, u int, _ float64) {
		if centres[s] == nil || centres[u] == nil {
			return
		}
		k := 0
		for d := range draws {
			l := pair(centres[s][d], centres[u][d])
			worst = math.Max(worst, l)
			if l > eps*(1+1e-9) {
				k++
			}
		}
		if k > beyond {
			beyond = k
		}
	})
	_, deltaHi = binomialBounds(beyond, draws, b)
	return beyond, deltaHi, worst
}

// sampledDraws is the draws per sampled source.
func sampledDraws(centres [][]int) int {
	for _, c := range centres {
		if c != nil {
			return len(c)
		}
	}
	return 0
}

// faultAccuracy is the chance the published community is the source's,
// for a uniformly drawn source and draw (a refusal counts as wrong).
func faultAccuracy(m *Model, cal privacy.AnswerCalibration, centres [][]int) float64 {
	acc, total := 0.0, 0
	for s, c := range centres {
		if c == nil {
			continue
		}
		own := m.Geometry.Community(m.node(s))
		for _, v := range c {
			total++
			if v >= 0 {
				acc += cal.ProbabilitiesAt(m.Geometry, v)[own]
			}
		}
	}
	return acc / float64(total)
}

// refusalViolations counts the edges whose refusal rates break
// P_a(refused) ≤ e^ε·P_z(refused) + δ with confidence (each check failing
// by chance with probability ≤ b).
func refusalViolations(g *laplacian.Graph, centres [][]int, eps, delta, b float64) (bad int, worst string) {
	draws := sampledDraws(centres)
	refused := make([]int, len(centres))
	for s, c := range centres {
		for _, v := range c {
			if v < 0 {
				refused[s]++
			}
		}
	}
	g.ForEachEdge(func(s, u int, _ float64) {
		if centres[s] == nil || centres[u] == nil {
			return
		}
		for _, e := range [][2]int{{s, u}, {u, s}} {
			a, z := e[0], e[1]
			loA, _ := binomialBounds(refused[a], draws, b)
			_, hiZ := binomialBounds(refused[z], draws, b)
			if loA > math.Exp(eps)*hiZ+delta {
				bad++
				worst = fmt.Sprintf("%s→%s refused %d vs %d of %d", g.Key(a), g.Key(z), refused[a], refused[z], draws)
			}
		}
	})
	return bad, worst
}

// TestSensorFaultOracle (issue 77, items 2–3): karate at τ = 1, the
// scope's model Gaussian noise of rms 0.5 % (δ as printed), the sensors'
// real noise drawn afresh at that rms, and one imperfection of the
// issue's table at 1×, 1.5× and 3× its size (stuck and saturated sensors
// at 1×: every 7th in turn; scripts/fault_oracle.sh runs every one, and
// PA-300). Under --on-mismatch nearest with α = 3 (each hop
// ε/3: a drift of one hop either side still fits ε) the published
// community's distribution (exact per draw, averaged over 300 draws per
// source) keeps P_s(S) ≤ e^ε·P_t(S) + δ on every edge, both ways, at
// ε = 1 and 4, with confidence intervals. The default policy (refuse) is
// run beside it and its violations logged: a stuck sensor makes the
// refusal a function of the source (unbounded loss).
func TestSensorFaultOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("hundreds of thousands of fits")
	}
	ctx := context.Background()
	g, every := faultGraph(t)
	only := faultSample(g, every)
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	const tau, mass, nu = 1.0, 3.0, 0.005
	alpha := CalibrationAlpha(1, 1) // a drift allowance of one hop (α = 1): the measured, not proven, option
	if v, err := strconv.ParseFloat(os.Getenv("GRAPHCLOAK_FAULT_ALPHA"), 64); err == nil {
		alpha = v
	}
	m, err := NewModel(ctx, g, tau, part, nil, recovery.CertifierOptions{SensorNoise: nu})
	if err != nil {
		t.Fatal(err)
	}
	delta := m.NoiseDelta()
	heat := heattest.PadeHeat(g, tau)
	draws := faultDraws()
	var faults []sensorFault
	for _, h := range []float64{1, 1.5, 3} {
		faults = append(faults, sensorFaults(g, mass, nu, h, every)...)
	}
	for _, eps := range []float64{1, 4} {
		cal, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, alpha, 0)
		if err != nil {
			t.Fatal(err)
		}
		def, err := privacy.CalibrateAnswer(ctx, m.Geometry, eps, 1, 0) // today's: refuse at α = 1
		if err != nil {
			t.Fatal(err)
		}
		refusing := 0
		for _, f := range faults {
			c := sampledCentres(t, m, heat, f, MismatchNearest, mass, nu, draws, only)
			beyond, deltaHi, worst := couplingCheck(g, m, cal, c, eps, 1e-3)
			if beyond > 0 {
				t.Errorf("nearest α=%g ε=%g %s: an edge's coupled loss exceeded ε on %d of %d draws (worst %.3f)", alpha, eps, f.name, beyond, draws, worst)
			}
			if os.Getenv("GRAPHCLOAK_FAULT_REFUSE") == "0" {
				t.Logf("ε=%g %-14s nearest α=%g: worst coupled loss %.3f, beyond ε on %d of %d draws (δ ≤ %.3g), accuracy %.3f",
					eps, f.name, alpha, worst, beyond, draws, deltaHi, faultAccuracy(m, cal, c))
				continue
			}
			r := sampledCentres(t, m, heat, f, MismatchRefuse, mass, nu, draws, only)
			bad, example := refusalViolations(g, r, eps, delta, 1e-6/float64(len(faults)*g.NumEdges()*2))
			if bad > 0 {
				refusing++
			}
			t.Logf("ε=%g %-14s nearest α=%g: worst coupled loss %.3f, beyond ε on %d of %d draws (δ ≤ %.3g), accuracy %.3f | refuse α=1: accuracy %.3f, %d edges beyond %s",
				eps, f.name, alpha, worst, beyond, draws, deltaHi, faultAccuracy(m, cal, c), faultAccuracy(m, def, r), bad, example)
		}
		t.Logf("ε=%g: the default (refuse) breaks the bound under %d of %d imperfections", eps, refusing, len(faults))
	}
}

// faultGraph is the oracle's graph (GRAPHCLOAK_FAULT_GRAPH: karate, the
// default; pa300; or file:PATH, an edge list such as bench/utility/lfr.py
// writes) and the stride of its faulty sensors (GRAPHCLOAK_FAULT_EVERY;
// default 7 on karate, 25 on PA-300, n/5 on a file).
func faultGraph(t *testing.T) (*laplacian.Graph, int) {
	t.Helper()
	name := os.Getenv("GRAPHCLOAK_FAULT_GRAPH")
	g, _ := laplacian.Karate()
	every := 7
	switch {
	case name == "pa300":
		pa, err := laplacian.PreferentialAttachment(300, 2, 11)
		if err != nil {
			t.Fatal(err)
		}
		g, every = pa, 25
	case strings.HasPrefix(name, "file:"):
		f, err := os.Open(strings.TrimPrefix(name, "file:"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if g, err = laplacian.ReadCSV(f, laplacian.Options{}); err != nil {
			t.Fatal(err)
		}
		every = max(1, g.N()/5)
	}
	if v, err := strconv.Atoi(os.Getenv("GRAPHCLOAK_FAULT_EVERY")); err == nil && v > 0 {
		every = v
	}
	return g, every
}

// faultSample is the sources the oracle draws for (nil: every one): with
// GRAPHCLOAK_FAULT_EDGES=k, the ends of every edge at a faulty sensor
// (every every-th; the fault next to the source is the hard case) and of
// k edges drawn uniformly with a fixed seed — so each checked edge has
// both ends drawn.
func faultSample(g *laplacian.Graph, every int) []bool {
	k, err := strconv.Atoi(os.Getenv("GRAPHCLOAK_FAULT_EDGES"))
	if err != nil || k <= 0 {
		return nil
	}
	only := make([]bool, g.N())
	var edges [][2]int
	g.ForEachEdge(func(s, u int, _ float64) {
		edges = append(edges, [2]int{s, u})
		if s%every == 0 || u%every == 0 {
			only[s], only[u] = true, true
		}
	})
	rng := rand.New(rand.NewPCG(77, 2000))
	for range k {
		e := edges[rng.IntN(len(edges))]
		only[e[0]], only[e[1]] = true, true
	}
	return only
}

// TestNearestPublishesNoDecision (issue 77, item 2): under
// --on-mismatch nearest every reading vector is answered, in-model or
// not, broken or not, and the published result says the same thing of
// each (one fixed mismatch text, exactSource false): nothing tells
// whether the readings fitted.
func TestNearestPublishesNoDecision(t *testing.T) {
	ctx := context.Background()
	g, part := laplacian.Karate()
	model, err := NewModel(ctx, g, 1, part, nil, recovery.CertifierOptions{SensorNoise: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	heat := heattest.PadeHeat(g, 1)
	cases := map[string]func(y []float64){
		"in the model": func([]float64) {},
		"stuck at 0":   func(y []float64) { y[0] = 0 },
		"saturated":    func(y []float64) { y[5] = 3 },
		"not a number": func(y []float64) { y[9] = math.NaN() },
		"two sources": func(y []float64) {
			for i := range y {
				y[i] += 3 * heat.At(i, 30)
			}
		},
	}
	i := 0
	for name, fault := range cases {
		y := make([]float64, g.N())
		for j := range y {
			y[j] = 3 * heat.At(j, 2)
		}
		fault(y)
		l, err := privacy.CreateFileLedger(ctx, t.TempDir()+"/l.json", privacy.Budget{Epsilon: 100, Delta: 1e-5, AnswerDelta: 1e-6}, privacy.FileLedgerOptions{}, "s")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(ctx, Request{Graph: g, Values: y, Tau: 1, Epsilon: 1, Alpha: 3, Model: model, Partition: part,
			OnMismatch: MismatchNearest, Ledger: l, Scope: "s", Epoch: fmt.Sprint("e", i), Noise: privacy.CryptoNoise()})
		i++
		if err != nil {
			t.Fatalf("%s: %v, want an answer", name, err)
		}
		if res.ExactSource || res.Mismatch != AnsweredNearest {
			t.Errorf("%s: exactSource %v, mismatch %q; want only %q", name, res.ExactSource, res.Mismatch, AnsweredNearest)
		}
	}
}
