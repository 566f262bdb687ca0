package privacy

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// hopsFloyd is the oracle: all-pairs hop distances by Floyd–Warshall.
func hopsFloyd(g *laplacian.Graph) [][]int {
	n := g.N()
	const inf = 1 << 30
	d := make([][]int, n)
	for i := range d {
		d[i] = make([]int, n)
		for j := range d[i] {
			if i != j {
				d[i][j] = inf
			}
		}
	}
	g.ForEachEdge(func(i, j int, _ float64) { d[i][j], d[j][i] = 1, 1 })
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if d[i][k]+d[k][j] < d[i][j] {
					d[i][j] = d[i][k] + d[k][j]
				}
			}
		}
	}
	return d
}

// communityDist is D(s, o) from the all-pairs oracle, truncated.
func communityDist(hops [][]int, part []int, k, s int) []int {
	out := make([]int, k)
	for o := range out {
		out[o] = MaxAnswerCap
	}
	for v, c := range part {
		out[c] = min(out[c], hops[s][v])
	}
	return out
}

func answerGraphs(t *testing.T) map[string]struct {
	g    *laplacian.Graph
	part []int
} {
	t.Helper()
	out := map[string]struct {
		g    *laplacian.Graph
		part []int
	}{}
	for _, spec := range []string{
		"sbm:sizes=20x20x20x20,pin=0.3,pout=0.02,seed=3",
		"sbm:sizes=15x25x10,pin=0.4,pout=0.05,seed=7",
		"rgg:n=120,radius=0.2,seed=2",
	} {
		g, part, err := laplacian.Generate(spec)
		if err != nil {
			t.Fatal(err)
		}
		if part == nil { // rgg: communities are vertical strips of the unit square (by index order)
			part = make([]int, g.N())
			for i := range part {
				part[i] = i * 6 / g.N()
			}
		}
		out[spec] = struct {
			g    *laplacian.Graph
			part []int
		}{g, part}
	}
	return out
}

// TestCommunityGeometryMatchesFloyd checks the histograms and both
// distance queries against all-pairs shortest paths.
func TestCommunityGeometryMatchesFloyd(t *testing.T) {
	for name, tc := range answerGraphs(t) {
		cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		hops := hopsFloyd(tc.g)
		for s := 0; s < tc.g.N(); s++ {
			want := communityDist(hops, cg.Partition(), cg.K(), s)
			got := cg.DistancesFrom(s)
			hist := make([]int32, MaxAnswerCap+1)
			for o := range want {
				if got[o] != want[o] {
					t.Fatalf("%s: D(%d, %d) = %d, Floyd–Warshall says %d", name, s, o, got[o], want[o])
				}
				hist[want[o]]++
			}
			if fmt.Sprint(hist) != fmt.Sprint(cg.Histogram(s)) {
				t.Fatalf("%s: histogram of node %d = %v, want %v", name, s, cg.Histogram(s), hist)
			}
		}
		for o := 0; o < cg.K(); o++ {
			to := cg.DistancesTo(o)
			for s := range to {
				if w := communityDist(hops, cg.Partition(), cg.K(), s)[o]; to[s] != w {
					t.Fatalf("%s: DistancesTo(%d)[%d] = %d, want %d", name, o, s, to[s], w)
				}
			}
		}
	}
}

// TestAnswerPrivacyBruteForce checks the guarantee itself: for every edge
// (s, t) and every output o, |ln P(o|s) − ln P(o|t)| ≤ ε/⌈α⌉, with P
// computed from the Floyd–Warshall distances, at every cap.
func TestAnswerPrivacyBruteForce(t *testing.T) {
	for name, tc := range answerGraphs(t) {
		cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		hops := hopsFloyd(tc.g)
		for _, eps := range []float64{0.3, 1, 4} {
			for _, alpha := range []float64{1, 2} {
				for capDist := 0; capDist <= 4; capDist++ {
					cal, err := CalibrateAnswer(context.Background(), cg, eps, alpha, capDist)
					if err != nil {
						t.Fatal(err)
					}
					worst := 0.0
					probs := func(s int) []float64 {
						if cal.envelope != nil {
							return envelopeOracle(cal.envelope, hops, s)
						}
						return cal.AnswerProbabilities(communityDist(hops, cg.Partition(), cg.K(), s))
					}
					tc.g.ForEachEdge(func(s, u int, _ float64) {
						ps, pu := probs(s), probs(u)
						for o := range ps {
							worst = max(worst, math.Abs(math.Log(ps[o])-math.Log(pu[o])))
						}
					})
					bound := eps / math.Ceil(alpha)
					if worst > bound*(1+1e-12) {
						t.Errorf("%s ε=%g α=%g cap=%g: worst edge loss %.6g > %.6g", name, eps, alpha, cal.Cap, worst, bound)
					}
					if cal.Loss < worst-1e-12 {
						t.Errorf("%s ε=%g cap=%g: reported loss %.6g below the brute-force %.6g", name, eps, cal.Cap, cal.Loss, worst)
					}
					if cal.envelope == nil && cal.Scale < bound/2-2.0/(1<<AnswerScaleBits) {
						t.Errorf("%s: ε′ = %g below the always-feasible ε/2 = %g", name, cal.Scale, bound/2)
					}
				}
			}
		}
	}
}

// TestRandomizedResponseClosedForm: cap 1 is randomized response, right
// with probability e^ε/(e^ε + k − 1) at every node.
func TestRandomizedResponseClosedForm(t *testing.T) {
	for name, tc := range answerGraphs(t) {
		cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0.5, 2, 8} {
			cal, err := CalibrateAnswer(context.Background(), cg, eps, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			k := float64(cg.K())
			want := math.Exp(eps) / (math.Exp(eps) + k - 1)
			if cal.Mechanism != AnswerRandomizedResponse || math.Abs(cal.Accuracy-want) > 1e-5 {
				t.Errorf("%s ε=%g: %s accuracy %.7f, closed form %.7f", name, eps, cal.Mechanism, cal.Accuracy, want)
			}
			if want := math.Min(eps*eps/2, eps); math.Abs(cal.Rho-want) > 1e-15 {
				t.Errorf("ρ = %g, want min(ε²/2, ε) = %g", cal.Rho, want)
			}
		}
	}
}

// TestAnswerAutoCapNoWorse: the chosen mechanism is at least as accurate as
// randomized response, and its accuracy is the mean of P(comm(s) | s)
// computed from the oracle distances.
func TestAnswerAutoCapNoWorse(t *testing.T) {
	tc := answerGraphs(t)["rgg:n=120,radius=0.2,seed=2"]
	cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
	if err != nil {
		t.Fatal(err)
	}
	hops := hopsFloyd(tc.g)
	rr, _ := CalibrateAnswer(context.Background(), cg, 2, 1, 1)
	auto, _ := CalibrateAnswer(context.Background(), cg, 2, 1, 0)
	if auto.Accuracy < rr.Accuracy {
		t.Fatalf("auto cap %g accuracy %g below randomized response %g", auto.Cap, auto.Accuracy, rr.Accuracy)
	}
	mean := 0.0
	for s := 0; s < tc.g.N(); s++ {
		p := auto.AnswerProbabilities(communityDist(hops, cg.Partition(), cg.K(), s))
		if auto.envelope != nil {
			p = envelopeOracle(auto.envelope, hops, s)
		}
		mean += p[cg.Community(s)]
	}
	mean /= float64(tc.g.N())
	if math.Abs(mean-auto.Accuracy) > 1e-12 {
		t.Fatalf("accuracy %g, oracle mean %g", auto.Accuracy, mean)
	}
}

// empiricalLoss samples the answer n times at s and at t and returns the
// largest |ln(freq_s(o)/freq_t(o))| over outputs seen at least minCount
// times on both sides.
func empiricalLoss(t *testing.T, rs, rt AnswerRequest, k, n int, label string) float64 {
	t.Helper()
	count := func(req AnswerRequest, lab string) []float64 {
		f := make([]float64, k)
		req.Noise = NoiseSource{src: testStream(lab)}
		for range n {
			o, err := SampleAnswer(req)
			if err != nil {
				t.Fatal(err)
			}
			f[o]++
		}
		return f
	}
	fs, ft := count(rs, label+"/s"), count(rt, label+"/t")
	worst := 0.0
	const minCount = 2000
	for o := range fs {
		if fs[o] >= minCount && ft[o] >= minCount {
			worst = max(worst, math.Abs(math.Log(fs[o]/ft[o])))
		}
	}
	return worst
}

// pathOfSix is a path of 6 nodes in 3 communities of 2: a small k makes
// every output frequent enough to measure.
func pathOfSix(t *testing.T) (*laplacian.Graph, *CommunityGeometry) {
	t.Helper()
	edges := []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 1, V: 2, Weight: 1}, {U: 2, V: 3, Weight: 1}, {U: 3, V: 4, Weight: 1}, {U: 4, V: 5, Weight: 1}}
	g, err := laplacian.FromEdges(6, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := NewCommunityGeometry(context.Background(), g, []int{0, 0, 1, 1, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	return g, cg
}

// worstEdge returns the neighbouring sources whose answer distributions
// differ the most, and that largest exact log-ratio.
func worstEdge(g *laplacian.Graph, cg *CommunityGeometry, cal AnswerCalibration) (bs, bt int, best float64) {
	best = -1
	g.ForEachEdge(func(s, u int, _ float64) {
		ps, pu := cal.ProbabilitiesAt(cg, s), cal.ProbabilitiesAt(cg, u)
		for o := range ps {
			if l := math.Abs(math.Log(ps[o] / pu[o])); l > best {
				best, bs, bt = l, s, u
			}
		}
	})
	return bs, bt, best
}

// TestAnswerEmpiricalEpsilon runs the sampler on two neighbouring sources
// whose distributions differ the most and checks the output frequencies
// are within e^ε (up to sampling error), and that the same check catches a
// mechanism whose noise is halved (ε′ doubled).
func TestAnswerEmpiricalEpsilon(t *testing.T) {
	g, cg := pathOfSix(t)
	const eps = 1.0
	cal, err := CalibrateAnswer(context.Background(), cg, eps, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	bs, bt, best := worstEdge(g, cg, cal)
	const n = 400000
	// Sampling error of a log-ratio of two counts ≥ 2000 at 400k draws:
	// sd ≤ sqrt(2/2000) ≈ 0.03; 0.15 is five of them.
	const tol = 0.15
	pair := func(cal AnswerCalibration) (AnswerRequest, AnswerRequest) {
		return AnswerRequest{Calibration: cal, Distances: cg.DistancesFrom(bs)}, AnswerRequest{Calibration: cal, Distances: cg.DistancesFrom(bt)}
	}
	rs, rt := pair(cal)
	got := empiricalLoss(t, rs, rt, cg.K(), n, "calibrated")
	if got > eps+tol {
		t.Fatalf("empirical loss %.3f > ε + %.2f (exact %.3f)", got, tol, best)
	}
	halved := cal
	halved.ScaleNum *= 2
	halved.Scale *= 2
	rs, rt = pair(halved)
	if got := empiricalLoss(t, rs, rt, cg.K(), n, "halved"); got <= eps+tol {
		t.Fatalf("the check did not catch halved noise: empirical loss %.3f ≤ ε + %.2f", got, tol)
	}
}

// TestAnswerKeyedDeterministic: a keyed answer is a function of the key and
// the release id; another release id draws afresh.
func TestAnswerKeyedDeterministic(t *testing.T) {
	key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	d := make([]int, 50) // 50 communities all at distance 0: uniform output
	cal := AnswerCalibration{Cap: 1, CapQuarters: 4, Scale: 1, ScaleNum: 1 << AnswerScaleBits}
	draw := func(id string) int {
		o, err := SampleAnswer(AnswerRequest{Calibration: cal, Distances: d, Noise: KeyedNoise(key), ReleaseID: id, Scope: "s", Epoch: "e"})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	id := NewReleaseID()
	if a, b := draw(id), draw(id); a != b {
		t.Fatalf("same key and release id drew %d then %d", a, b)
	}
	differ := false
	for range 20 {
		if draw(NewReleaseID()) != draw(id) {
			differ = true
			break
		}
	}
	if !differ {
		t.Fatal("20 fresh release ids all drew the same answer out of 50")
	}
	if _, err := SampleAnswer(AnswerRequest{Calibration: cal, Distances: d, Noise: KeyedNoise(key), ReleaseID: "bad"}); err == nil {
		t.Fatal("a keyed answer without a valid release id was accepted")
	}
}

// envelopeOracle is P(o | s) of the community-envelope mechanism from the
// all-pairs distances and the mechanism's public weights alone: the
// exponents b_o(s) = min(floor, min_{v ∈ o} a_v + e·hops(s, v)), the abstain
// exponent bu(s) added to the fallback community c*, normalised afresh (the
// distribution the sampler draws).
func envelopeOracle(env *envelope, hops [][]int, s int) []float64 {
	cg := env.cg
	b := make([]int64, cg.k)
	for o := range b {
		b[o] = env.floor
	}
	for v, c := range cg.part {
		if h := hops[s][v]; h < 1<<20 {
			b[c] = min(b[c], env.a[v]+env.e*int64(h))
		}
	}
	p := make([]float64, cg.k)
	z := gridExp(env.bu[s])
	for o := range p {
		p[o] = gridExp(b[o])
		z += gridExp(b[o])
	}
	p[env.fallback] += gridExp(env.bu[s]) // abstaining publishes c*
	for o := range p {
		p[o] /= z
	}
	return p
}

// envelopeOracleAbstain returns each community's abstain probability
// Σ_{s ∈ c} P(abstain | s), from the oracle's own normalisers; the
// fallback c* must hold the most.
func envelopeOracleAbstain(env *envelope, hops [][]int) []float64 {
	mass := make([]float64, env.cg.k)
	for s, c := range env.cg.part {
		b := make([]int64, env.cg.k)
		for o := range b {
			b[o] = env.floor
		}
		for v, cv := range env.cg.part {
			if h := hops[s][v]; h < 1<<20 {
				b[cv] = min(b[cv], env.a[v]+env.e*int64(h))
			}
		}
		y := gridExp(env.bu[s])
		for _, x := range b {
			y += gridExp(x)
		}
		mass[c] += gridExp(env.bu[s]) / y
	}
	return mass
}

// envelopeCase is a graph whose hubs make the envelope mechanism pay: two
// stars of 40 leaves, each leaf a community of its own, bridged through a
// path that crosses three more communities.
func envelopeCase(t *testing.T) (*laplacian.Graph, []int) {
	t.Helper()
	var edges []laplacian.Edge
	part := []int{}
	add := func(c int) int32 { part = append(part, c); return int32(len(part) - 1) }
	hubA, hubB := add(0), add(1)
	for i := range 40 {
		edges = append(edges, laplacian.Edge{U: hubA, V: add(2 + i), Weight: 1})
		edges = append(edges, laplacian.Edge{U: hubB, V: add(42 + i), Weight: 1})
	}
	prev := hubA
	for _, c := range []int{82, 82, 83, 83, 84, 84} {
		v := add(c)
		edges = append(edges, laplacian.Edge{U: prev, V: v, Weight: 1})
		prev = v
	}
	edges = append(edges, laplacian.Edge{U: prev, V: hubB, Weight: 1})
	g, err := laplacian.FromEdges(len(part), nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g, part
}

// TestAnswerEnvelopeOracle: the envelope mechanism's probabilities (from
// its own breadth-first search), its accuracy and its reported loss agree
// with the Floyd–Warshall oracle, and the oracle's worst loss over every
// edge and output is within ε/⌈α⌉.
func TestAnswerEnvelopeOracle(t *testing.T) {
	graphs := answerGraphs(t)
	g, part := envelopeCase(t)
	graphs["two stars"] = struct {
		g    *laplacian.Graph
		part []int
	}{g, part}
	for name, tc := range graphs {
		cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
		if err != nil {
			t.Fatal(err)
		}
		hops := hopsFloyd(tc.g)
		for _, eps := range []float64{0.3, 1, 4} {
			for _, alpha := range []float64{1, 2} {
				perHop := eps / math.Ceil(alpha)
				cal, err := cg.calibrateEnvelope(context.Background(), perHop)
				if err != nil {
					t.Fatal(err)
				}
				checkEnvelopeOracle(t, fmt.Sprintf("%s ε=%g α=%g", name, eps, alpha), cg, cal, hops, perHop)
			}
		}
	}
}

// checkEnvelopeOracle checks an envelope calibration against the
// Floyd–Warshall oracle: the fallback community, every P(o|s), the
// accuracy, and the worst loss over every edge and output (within perHop,
// and below the reported loss).
func checkEnvelopeOracle(t *testing.T, name string, cg *CommunityGeometry, cal AnswerCalibration, hops [][]int, perHop float64) {
	t.Helper()
	g := cg.g
	// The fallback holds the most abstain mass (up to rounding: the
	// oracle sums Y in another order, and symmetric graphs tie).
	mass := envelopeOracleAbstain(cal.envelope, hops)
	if top := slices.Max(mass); mass[cal.envelope.fallback] < top*(1-1e-12) {
		t.Fatalf("%s: abstaining publishes community %d (abstain mass %.15g), the oracle's most is %.15g", name, cal.envelope.fallback, mass[cal.envelope.fallback], top)
	}
	worst, acc := 0.0, 0.0
	for s := range g.N() {
		want := envelopeOracle(cal.envelope, hops, s)
		got := cal.ProbabilitiesAt(cg, s)
		for o := range want {
			if math.Abs(got[o]-want[o]) > 1e-12 {
				t.Fatalf("%s: P(%d|%d) = %.15g, oracle %.15g", name, o, s, got[o], want[o])
			}
		}
		acc += want[cg.Community(s)]
	}
	g.ForEachEdge(func(s, u int, _ float64) {
		ps, pu := envelopeOracle(cal.envelope, hops, s), envelopeOracle(cal.envelope, hops, u)
		for o := range ps {
			worst = max(worst, math.Abs(math.Log(ps[o])-math.Log(pu[o])))
		}
	})
	if worst > perHop*(1+1e-12) {
		t.Errorf("%s: worst edge loss %.6g > %.6g", name, worst, perHop)
	}
	if cal.Loss < worst-1e-12 || cal.Loss > perHop {
		t.Errorf("%s: reported loss %.6g, brute force %.6g, bound %.6g", name, cal.Loss, worst, perHop)
	}
	if acc /= float64(g.N()); math.Abs(acc-cal.Accuracy) > 1e-9 {
		t.Errorf("%s: accuracy %.9f, oracle mean %.9f", name, cal.Accuracy, acc)
	}
}

// hubGeometry is a preferential-attachment graph of 400 nodes (hubs next
// to many communities) with its Leiden communities.
func hubGeometry(t *testing.T) (*laplacian.Graph, *CommunityGeometry) {
	t.Helper()
	g, _, err := laplacian.Generate("pa:n=400,m=2,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := NewCommunityGeometry(context.Background(), g, part)
	if err != nil {
		t.Fatal(err)
	}
	return g, cg
}

// TestAnswerEnvelopeOptimised: on a preferential-attachment graph (hubs
// next to many communities) the optimised weights are a valid mechanism by
// the Floyd–Warshall oracle and answer right clearly more often than the
// starting weights settled the same way (measured 28.6% against 24.4% at
// ε = 1); CalibrateAnswer publishes the better of the two.
func TestAnswerEnvelopeOptimised(t *testing.T) {
	g, cg := hubGeometry(t)
	const eps = 1.0
	start := cg.startEnvelope(eps)
	plain, err := start.proposal(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := start.proposal(context.Background(), optimizeSteps(g.N(), cg.k))
	if err != nil {
		t.Fatal(err)
	}
	checkEnvelopeOracle(t, "optimised", cg, opt, hopsFloyd(g), eps)
	if opt.Accuracy < 1.1*plain.Accuracy {
		t.Errorf("optimised accuracy %.4f, starting weights %.4f: want ≥ 10%% more", opt.Accuracy, plain.Accuracy)
	}
	cal, err := cg.calibrateEnvelope(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Accuracy < max(opt.Accuracy, plain.Accuracy) {
		t.Errorf("calibrated accuracy %.6f, proposals %.6f and %.6f", cal.Accuracy, plain.Accuracy, opt.Accuracy)
	}
}

// TestAnswerEnvelopeSparse: at small ε a proposal that answers only the
// largest communities is a valid envelope mechanism (the Floyd–Warshall
// oracle), never names another community except on abstaining, is more
// accurate than answering every community, and is what calibration
// publishes (or something better).
func TestAnswerEnvelopeSparse(t *testing.T) {
	g, cg := hubGeometry(t)
	const eps = 0.3
	start := cg.startEnvelope(eps)
	full, err := start.proposal(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := start.sparse(2).proposal(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("k = %d, ε = %g: all communities %.4f, the 2 largest %.4f", cg.k, eps, full.Accuracy, sparse.Accuracy)
	checkEnvelopeOracle(t, "sparse", cg, sparse, hopsFloyd(g), eps)
	size := make([]int, cg.k)
	for _, c := range cg.part {
		size[c]++
	}
	answered := largest(size, 2)
	env := sparse.envelope
	for s := range g.N() {
		for o, p := range env.probabilities(s) {
			// Unanswered communities keep only the floor's weight (Y ≥ 1/2).
			if !slices.Contains(answered, o) && o != env.fallback && p > 2*gridExp(env.floor) {
				t.Fatalf("source %d: community %d (not among the 2 largest) has probability %g", s, o, p)
			}
		}
	}
	if sparse.Accuracy < 1.1*full.Accuracy {
		t.Errorf("sparse accuracy %.4f, all communities %.4f: want ≥ 10%% more", sparse.Accuracy, full.Accuracy)
	}
	cal, err := cg.calibrateEnvelope(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if cal.Accuracy < sparse.Accuracy {
		t.Errorf("calibrated accuracy %.6f below the sparse proposal's %.6f", cal.Accuracy, sparse.Accuracy)
	}
}

// largest returns the m largest communities by size (ties by id).
func largest(size []int, m int) []int {
	order := make([]int, len(size))
	for o := range order {
		order[o] = o
	}
	slices.SortStableFunc(order, func(x, y int) int { return size[y] - size[x] })
	return order[:m]
}

// TestAnswerEnvelopeBeatsGeometric: on a graph with hubs the envelope's
// weights follow the graph and answer right more often than the best
// geometric cap, which is what CalibrateAnswer then picks.
func TestAnswerEnvelopeBeatsGeometric(t *testing.T) {
	g, part := envelopeCase(t)
	cg, err := NewCommunityGeometry(context.Background(), g, part)
	if err != nil {
		t.Fatal(err)
	}
	env, err := cg.calibrateEnvelope(context.Background(), 4)
	if err != nil {
		t.Fatal(err)
	}
	geo := AnswerCalibration{}
	for c := 1; c <= 4; c++ {
		if cal, _ := CalibrateAnswer(context.Background(), cg, 4, 1, c); cal.Accuracy > geo.Accuracy {
			geo = cal
		}
	}
	if env.Accuracy <= geo.Accuracy {
		t.Fatalf("envelope %.4f not above the best geometric cap %.4f", env.Accuracy, geo.Accuracy)
	}
	auto, err := CalibrateAnswer(context.Background(), cg, 4, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if auto.Mechanism != AnswerEnvelope || auto.Accuracy != env.Accuracy {
		t.Fatalf("CalibrateAnswer chose %s (%.4f), want the envelope (%.4f)", auto.Mechanism, auto.Accuracy, env.Accuracy)
	}
}

// TestAnswerEnvelopeEmpiricalEpsilon samples the envelope mechanism at the
// two neighbouring sources whose distributions differ the most and checks
// the frequencies are within e^ε, and that the check catches the
// mechanism with its noise halved (ε′ doubled).
func TestAnswerEnvelopeEmpiricalEpsilon(t *testing.T) {
	g, cg := pathOfSix(t)
	const eps = 2.0
	cal, err := cg.calibrateEnvelope(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	bs, bt, best := worstEdge(g, cg, cal)
	const n, tol = 400000, 0.15 // as TestAnswerEmpiricalEpsilon
	loss := func(cal AnswerCalibration, lab string) float64 {
		return empiricalLoss(t, AnswerRequest{Calibration: cal, Source: bs}, AnswerRequest{Calibration: cal, Source: bt}, cg.K(), n, lab)
	}
	if got := loss(cal, "envelope"); got > eps+tol {
		t.Fatalf("empirical loss %.3f > ε + %.2f (exact %.3f)", got, tol, best)
	}
	env := *cal.envelope
	env.e *= 2
	halved := cal
	halved.envelope = &env
	if got := loss(halved, "envelope-halved"); got <= eps+tol {
		t.Fatalf("the check did not catch halved noise: empirical loss %.3f ≤ ε + %.2f", got, tol)
	}
}

// TestAnswerEnvelopeDeterministic: the weights (and so the mechanism) do not
// depend on how many workers computed them.
func TestAnswerEnvelopeDeterministic(t *testing.T) {
	tc := answerGraphs(t)["sbm:sizes=20x20x20x20,pin=0.3,pout=0.02,seed=3"]
	cg, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *envelope
	for _, procs := range []int{1, 3, 4} {
		runtime.GOMAXPROCS(procs)
		cal, err := cg.calibrateEnvelope(context.Background(), 1.5)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = cal.envelope
			continue
		}
		if !slices.Equal(first.a, cal.envelope.a) || !slices.Equal(first.bu, cal.envelope.bu) || !slices.Equal(first.y, cal.envelope.y) {
			t.Fatalf("GOMAXPROCS %d: weights differ from GOMAXPROCS 1", procs)
		}
	}
}

// TestAnswerEnvelopeStoreSame: reading the lowering and the shrinking's
// masses from the recorded sweep gives the same weights, to the bit, as
// sweeping again (the store switched off), on graphs and ε where both the
// lowering rounds and the final shift run.
func TestAnswerEnvelopeStoreSame(t *testing.T) {
	_, hub := hubGeometry(t)
	tc := answerGraphs(t)["sbm:sizes=20x20x20x20,pin=0.3,pout=0.02,seed=3"]
	sbm, err := NewCommunityGeometry(context.Background(), tc.g, tc.part)
	if err != nil {
		t.Fatal(err)
	}
	defer func(v int) { maxStoredPairs = v }(maxStoredPairs)
	for name, cg := range map[string]*CommunityGeometry{"pa:n=400": hub, "sbm": sbm} {
		for _, eps := range []float64{0.3, 1, 4} {
			var cals [2]AnswerCalibration
			for i, pairs := range []int{1 << 27, 0} {
				maxStoredPairs = pairs
				if cals[i], err = cg.calibrateEnvelope(context.Background(), eps); err != nil {
					t.Fatal(err)
				}
			}
			a, b := cals[0].envelope, cals[1].envelope
			if !slices.Equal(a.a, b.a) || !slices.Equal(a.bu, b.bu) || !slices.Equal(a.y, b.y) || a.fallback != b.fallback {
				t.Errorf("%s ε=%g: weights with the store differ from sweeping again (accuracy %.9f vs %.9f)", name, eps, cals[0].Accuracy, cals[1].Accuracy)
			}
		}
	}
}

// TestAnswerEnvelopeOptimisedLarge: where every community is too much to
// optimise (n·k above envelopeOptimizeMaxWork, lowered here so that the
// PA-400 graph takes that path), calibration also optimises the best
// plain proposal — at ε = 1 a sparse one. That optimised sparse proposal
// is a valid mechanism by the Floyd–Warshall oracle and still names no
// community it does not answer except on abstaining, and calibration
// publishes the most accurate of all (here the plain sparse one: on this
// small graph optimising it loses, 27.1% → 25.4%; on the LFR graph of 10⁵
// nodes at ε = 2 it gains, 7.9% → 10.2%).
func TestAnswerEnvelopeOptimisedLarge(t *testing.T) {
	g, cg := hubGeometry(t)
	const eps = 1.0
	start := cg.startEnvelope(eps)
	plain, err := start.proposal(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	best, bestM := plain, cg.k
	for m := 1; 2*m <= cg.k; m *= 2 {
		cand, err := start.sparse(m).proposal(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if cand.Accuracy > best.Accuracy {
			best, bestM = cand, m
		}
	}
	if bestM == cg.k {
		t.Fatalf("no sparse proposal beats answering all %d communities at ε = %g: the case does not test the sparse start", cg.k, eps)
	}
	opt, err := start.sparse(bestM).proposal(context.Background(), envelopeOptimizeSteps)
	if err != nil {
		t.Fatal(err)
	}
	checkEnvelopeOracle(t, "optimised sparse", cg, opt, hopsFloyd(g), eps)
	answered := largest(communitySizes(cg), bestM)
	env := opt.envelope
	for s := range g.N() {
		for o, p := range env.probabilities(s) {
			if !slices.Contains(answered, o) && o != env.fallback && p > 2*gridExp(env.floor) {
				t.Fatalf("source %d: community %d (not among the %d largest) has probability %g", s, o, bestM, p)
			}
		}
	}
	defer func(w int) { envelopeOptimizeMaxWork = w }(envelopeOptimizeMaxWork)
	envelopeOptimizeMaxWork = g.N()*cg.k - 1
	cal, err := cg.calibrateEnvelope(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("k = %d, ε = %g: best plain proposal (m = %d) %.4f, optimised %.4f, calibrated %.4f", cg.k, eps, bestM, best.Accuracy, opt.Accuracy, cal.Accuracy)
	if want := max(best.Accuracy, opt.Accuracy); cal.Accuracy != want {
		t.Errorf("calibrated accuracy %.6f, the best proposal's %.6f", cal.Accuracy, want)
	}
}

// communitySizes returns the size of every community of cg.
func communitySizes(cg *CommunityGeometry) []int {
	size := make([]int, cg.k)
	for _, c := range cg.part {
		size[c]++
	}
	return size
}
