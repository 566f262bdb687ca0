package privacy

import (
	"context"
	"fmt"
	"math"
	"testing"

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
					tc.g.ForEachEdge(func(s, u int, _ float64) {
						ps := cal.AnswerProbabilities(communityDist(hops, cg.Partition(), cg.K(), s))
						pu := cal.AnswerProbabilities(communityDist(hops, cg.Partition(), cg.K(), u))
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
					if cal.Scale < bound/2-2.0/(1<<AnswerScaleBits) {
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

// TestAnswerAutoCapNoWorse: the chosen cap is at least as accurate as
// randomized response, and its accuracy is the mean of 1/Z(s) computed
// from the oracle distances.
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
		mean += auto.AnswerProbabilities(communityDist(hops, cg.Partition(), cg.K(), s))[cg.Community(s)]
	}
	mean /= float64(tc.g.N())
	if math.Abs(mean-auto.Accuracy) > 1e-12 {
		t.Fatalf("accuracy %g, oracle mean %g", auto.Accuracy, mean)
	}
}

// empiricalLoss samples the answer n times at s and at t and returns the
// largest |ln(freq_s(o)/freq_t(o))| over outputs seen at least minCount
// times on both sides.
func empiricalLoss(t *testing.T, cal AnswerCalibration, ds, dt []int, n int, label string) float64 {
	t.Helper()
	count := func(d []int, lab string) []float64 {
		f := make([]float64, len(d))
		src := testStream(lab)
		for range n {
			o, err := SampleAnswer(AnswerRequest{Calibration: cal, Distances: d, Noise: NoiseSource{src: src}})
			if err != nil {
				t.Fatal(err)
			}
			f[o]++
		}
		return f
	}
	fs, ft := count(ds, label+"/s"), count(dt, label+"/t")
	worst := 0.0
	const minCount = 2000
	for o := range fs {
		if fs[o] >= minCount && ft[o] >= minCount {
			worst = max(worst, math.Abs(math.Log(fs[o]/ft[o])))
		}
	}
	return worst
}

// TestAnswerEmpiricalEpsilon runs the sampler on two neighbouring sources
// whose distributions differ the most and checks the output frequencies
// are within e^ε (up to sampling error), and that the same check catches a
// mechanism whose noise is halved (ε′ doubled).
func TestAnswerEmpiricalEpsilon(t *testing.T) {
	// A path of 6 nodes in 3 communities of 2: a small k makes every
	// output frequent enough to measure.
	edges := []laplacian.Edge{{U: 0, V: 1, Weight: 1}, {U: 1, V: 2, Weight: 1}, {U: 2, V: 3, Weight: 1}, {U: 3, V: 4, Weight: 1}, {U: 4, V: 5, Weight: 1}}
	g, err := laplacian.FromEdges(6, nil, edges, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := NewCommunityGeometry(context.Background(), g, []int{0, 0, 1, 1, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1.0
	cal, err := CalibrateAnswer(context.Background(), cg, eps, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The pair with the largest exact loss.
	var bs, bt int
	best := -1.0
	g.ForEachEdge(func(s, u int, _ float64) {
		ps, pu := cal.AnswerProbabilities(cg.DistancesFrom(s)), cal.AnswerProbabilities(cg.DistancesFrom(u))
		for o := range ps {
			if l := math.Abs(math.Log(ps[o] / pu[o])); l > best {
				best, bs, bt = l, s, u
			}
		}
	})
	const n = 400000
	// Sampling error of a log-ratio of two counts ≥ 2000 at 400k draws:
	// sd ≤ sqrt(2/2000) ≈ 0.03; 0.15 is five of them.
	const tol = 0.15
	got := empiricalLoss(t, cal, cg.DistancesFrom(bs), cg.DistancesFrom(bt), n, "calibrated")
	if got > eps+tol {
		t.Fatalf("empirical loss %.3f > ε + %.2f (exact %.3f)", got, tol, best)
	}
	halved := cal
	halved.ScaleNum *= 2
	halved.Scale *= 2
	if got := empiricalLoss(t, halved, cg.DistancesFrom(bs), cg.DistancesFrom(bt), n, "halved"); got <= eps+tol {
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
