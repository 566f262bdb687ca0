package forecast

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestVerdictRateIsLocates: a curve by source mass forecasts the rate at
// which locate's verdict calls a release an answer, against an
// independent oracle — releases drawn here, each judged as locate judges
// one (EstimateMass, the evidence test, AtMass at the mass's lower bound,
// Judge). On karate at ε = 2 with 10-unit sources the ranking is right
// far more often than locate answers (most releases' mass bounds fall
// below the mass the forecast resolves), so the ranking's rate — all a
// plan printed before — is no forecast of the verdict.
func TestVerdictRateIsLocates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a hundred and fifty verdicts")
	}
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sens, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const mass = 10.0
	e := Simulation{Graph: g, Partition: part, Tau: 1, Epsilon: 2, Delta: 1e-5, Sensitivity: &sens, Trials: 400, VerdictRoundTrials: 100, Seed: 5}
	curve, _, err := MassCurve(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	var pt MassPoint
	for _, p := range curve {
		if p.Mass == mass {
			pt = p
		}
	}
	if pt.VerdictTrials == 0 {
		t.Fatalf("the curve's %g-unit point forecasts no verdict: %+v", mass, pt)
	}
	unit, err := PerNode(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	sigma := unit.Sigma

	// The oracle: releases judged one by one, as locate judges.
	model, err := recovery.NewGraphModel(g, e.Tau, recovery.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const releases = 150
	rng := rand.New(rand.NewPCG(11, 12))
	je := e
	je.Trials = 100 // locate's default forecast trials
	answers := 0
	n := g.N()
	for r := range releases {
		f0 := make([]float64, n)
		f0[rng.IntN(n)] = mass
		y := make([]float64, n)
		model.Apply(y, f0)
		for i := range y {
			y[i] += sigma * rng.NormFloat64()
		}
		seed := uint64(100 + r)
		m := EstimateMass(model, y, sigma, seed, nil)
		_, p := recovery.EvidenceTest{Seed: seed, Partition: part}.PValue(model.Problem(y, sigma))
		je.Seed = seed
		f, err := AtMass(ctx, je, m)
		if err != nil {
			t.Fatal(err)
		}
		if !Judge(f, m, p).Noise {
			answers++
		}
	}
	got := float64(answers) / releases
	// Binomial standard errors of both rates; 3.5 of their combined.
	se := math.Sqrt(got*(1-got)/releases + pt.VerdictRate*(1-pt.VerdictRate)/float64(pt.VerdictTrials))
	tol := 3.5 * math.Max(se, 0.02)
	t.Logf("%g-unit sources: ranked right %.3f, verdict rate forecast %.3f (%d trials), locate's %.3f (%d releases), tolerance %.3f",
		mass, pt.CommunityAccuracy, pt.VerdictRate, pt.VerdictTrials, got, releases, tol)
	if math.Abs(pt.VerdictRate-got) > tol {
		t.Errorf("verdict rate forecast %.3f, locate answers %.3f of %d releases (tolerance %.3f)", pt.VerdictRate, got, releases, tol)
	}
	// The ranking's rate is no forecast of the verdict here: the test
	// would fail on a plan that printed it alone.
	if math.Abs(pt.CommunityAccuracy-got) <= tol {
		t.Errorf("the ranking's rate %.3f is within %.3f of locate's %.3f: this case tells the two apart no more", pt.CommunityAccuracy, tol, got)
	}
}

// TestVerdictCurveWhereAnswersTurn: a plan reads each release's answer
// probability off its verdict curve; against the closed form — the
// probability PerNodeAnswers gives at the true rate of each verdict mass,
// averaged — on a rate strongly convex in log mass between two grid
// points, where the verdict masses fall. The grid's straight line between
// 1 and 3.16 units puts the answers' turn far too low (the power grid's
// 7-point overstatement, larger here): reading the grid alone fails.
func TestVerdictCurveWhereAnswersTurn(t *testing.T) {
	const guess, rounds = 0.04, 100
	// The true rate: flat at 0.03 up to 1 unit, then cubic in log mass.
	truth := func(m float64) float64 {
		if m <= 1 {
			return 0.03
		}
		x := math.Log(m) / math.Log(3.16)
		return math.Min(0.99, 0.03+0.25*x*x*x)
	}
	var grid []MassPoint
	for _, m := range MassGrid() {
		grid = append(grid, MassPoint{Mass: m, CommunityAccuracy: truth(m)})
	}
	// 240 verdict masses: 40 noise (0), 200 spread evenly in log mass
	// over [1, 3.16) — all on the one grid step, as the power grid's are.
	var masses []float64
	for range 40 {
		masses = append(masses, 0)
	}
	for k := range 200 {
		masses = append(masses, math.Pow(3.16, float64(k)/200))
	}
	var oracle float64
	for _, m := range masses {
		if m > 0 {
			oracle += PerNodeAnswers(truth(m), guess, rounds)
		}
	}
	oracle /= float64(len(masses))

	var asked []float64
	vc, err := verdictCurve(grid, masses, guess, rounds, func(m float64) (float64, error) {
		asked = append(asked, m)
		return truth(m), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := VerdictRateOf(masses, vc, guess, rounds)
	old := VerdictRateOf(masses, grid, guess, rounds)
	t.Logf("verdict rate: closed form %.4f, verdict curve %.4f (%d masses simulated: %.3g), the grid alone %.4f", oracle, got, len(asked), asked, old)
	// The curve is exact at its points and the rate's turn spans ~3 of
	// its final steps (ratio ≤ 10^(1/16)): a straight line there errs by
	// a few thousandths of the rate, ~1 point of the answers.
	if math.Abs(got-oracle) > 0.015 {
		t.Errorf("verdict rate %.4f read off the verdict curve, %.4f in closed form", got, oracle)
	}
	if math.Abs(old-oracle) <= 0.1 {
		t.Errorf("the grid alone reads %.4f, within 0.1 of %.4f: this case tells the two apart no more", old, oracle)
	}
	// Three halvings of one grid step at most, and none where no verdict
	// mass falls (above 3.16 units the answers do not turn; below 1 no
	// mass falls).
	if len(asked) > 7 {
		t.Errorf("%d masses simulated on one grid step, want ≤ 7", len(asked))
	}
	for _, m := range asked {
		if m <= 1 || m >= 3.16 {
			t.Errorf("simulated %.4g units, outside the step [1, 3.16] the verdict masses fall on", m)
		}
	}
	for i := 1; i < len(vc); i++ {
		if !(vc[i].Mass > vc[i-1].Mass) || vc[i].CommunityAccuracy < vc[i-1].CommunityAccuracy {
			t.Fatalf("verdict curve not ascending in mass and rate at %d: %+v", i, vc)
		}
	}
}

// TestMonotoneRates: the pool-adjacent-violators fit against brute force —
// the non-decreasing sequence closest in squared error, found over every
// way of cutting the points into runs pooled to their means.
func TestMonotoneRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for range 200 {
		n := 1 + rng.IntN(7)
		pts := make([]MassPoint, n)
		in := make([]float64, n)
		for i := range pts {
			in[i] = math.Round(rng.Float64()*10) / 10
			pts[i] = MassPoint{Mass: float64(i + 1), CommunityAccuracy: in[i]}
		}
		monotoneRates(pts)
		best := math.Inf(1)
		var want []float64
		for cuts := 0; cuts < 1<<(n-1); cuts++ { // bit i: a run ends after point i
			fit := make([]float64, n)
			start := 0
			ok := true
			for i := range n {
				if i == n-1 || cuts&(1<<i) != 0 {
					var s float64
					for _, v := range in[start : i+1] {
						s += v
					}
					for k := start; k <= i; k++ {
						fit[k] = s / float64(i+1-start)
					}
					if start > 0 && fit[start] < fit[start-1]-1e-12 {
						ok = false
					}
					start = i + 1
				}
			}
			if !ok {
				continue
			}
			var sse float64
			for i := range fit {
				sse += (fit[i] - in[i]) * (fit[i] - in[i])
			}
			if sse < best-1e-12 {
				best, want = sse, fit
			}
		}
		for i := range pts {
			if math.Abs(pts[i].CommunityAccuracy-want[i]) > 1e-9 {
				t.Fatalf("rates %v: fit %v, want %v", in, pts, want)
			}
		}
	}
}

// TestMassCurveReadsItsVerdictCurve: a curve's verdict rates are read off
// its verdict curve — every point's rate is VerdictRateOf its own
// releases' verdict masses on that curve — which holds every grid mass,
// ascends in mass and rate, and adds masses only inside grid steps that
// some release's verdict mass falls in.
func TestMassCurveReadsItsVerdictCurve(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: 100, VerdictRoundTrials: 100, Seed: 5, Verdicts: true}
	rs, err := MassCurves(context.Background(), []Simulation{e}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	vc := r.VerdictCurve()
	var all []float64
	for _, vm := range r.verdictMasses {
		all = append(all, vm...)
	}
	grid := map[float64]bool{}
	for _, p := range r.Points {
		grid[p.Mass] = true
	}
	seen := 0
	for i, p := range vc {
		if i > 0 && (!(p.Mass > vc[i-1].Mass) || p.CommunityAccuracy < vc[i-1].CommunityAccuracy) {
			t.Fatalf("verdict curve not ascending at %d: %+v", i, vc)
		}
		if grid[p.Mass] {
			seen++
			continue
		}
		// An added mass: inside a grid step some verdict mass falls in.
		lo, hi := 0.0, math.Inf(1)
		for _, q := range r.Points {
			if q.Mass < p.Mass {
				lo = q.Mass
			} else if q.Mass > p.Mass && hi == math.Inf(1) {
				hi = q.Mass
			}
		}
		in := false
		for _, m := range all {
			in = in || (m > lo && m < hi)
		}
		if !in {
			t.Errorf("mass %.4g added on the step (%g, %g), where no verdict mass falls", p.Mass, lo, hi)
		}
	}
	if seen != len(r.Points) {
		t.Errorf("verdict curve holds %d of the %d grid masses", seen, len(r.Points))
	}
	read := 0
	for i, p := range r.Points {
		vm := r.verdictMasses[i]
		if len(vm) == 0 {
			continue
		}
		read++
		want := VerdictRateOf(vm, vc, r.Unit.Guess(), e.VerdictRoundTrials)
		if r.LocateStep > 0 { // read off locate's step (TestVerdictRateIsLocatesStep)
			want = StepRateOf(vm, r.LocateStep)
		}
		if p.VerdictRate != want || p.VerdictTrials != len(vm) {
			t.Errorf("mass %g: verdict rate %v of %d, want %v of %d read off the verdict curve", p.Mass, p.VerdictRate, p.VerdictTrials, want, len(vm))
		}
	}
	t.Logf("%d points read, verdict curve of %d masses (%d added)", read, len(vc), len(vc)-len(r.Points))
	if len(vc)-len(r.Points) > refineMax {
		t.Errorf("%d masses added, want ≤ %d", len(vc)-len(r.Points), refineMax)
	}
	if read == 0 || len(vc) == len(r.Points) {
		t.Errorf("karate at σ 0.25: %d points forecast a verdict, %d masses added — the case checks nothing", read, len(vc)-len(r.Points))
	}
}

// TestVerdictRateIsLocatesStep: locate's forecast is seeded, so on one
// graph, partition and σ its verdict is a function of the verdict mass
// alone; a plan at locate's seed forecasts the share of its simulated
// releases locate answers exactly — against the oracle of locate's own
// forecast (AtMass: the seed, 100 trials a round, the communities
// numbered in order) run on every verdict mass the curve simulated. The
// averaged model (PerNodeAnswers over the curve's rates) gives shares
// that are not these.
func TestVerdictRateIsLocatesStep(t *testing.T) {
	g, _ := laplacian.Karate()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := Simulation{Graph: g, Partition: part, Tau: 1, Sigma: 0.25, Trials: 100, VerdictRoundTrials: 100, Seed: 5, Verdicts: true}
	rs, err := MassCurves(ctx, []Simulation{e}, e.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if !(r.LocateStep > 0) {
		t.Errorf("no step found on karate at σ 0.25")
	}
	canon, _ := community.Canonical(nil, part)
	locate := Simulation{Graph: g, Partition: canon, Tau: 1, Sigma: 0.25, Sources: 1, Trials: 100, Seed: e.Seed}
	answered := map[float64]bool{}
	answers := func(m float64) bool {
		if a, ok := answered[m]; ok {
			return a
		}
		f, err := AtMass(ctx, locate, GivenMass(m, ""))
		if err != nil {
			t.Fatal(err)
		}
		answered[m] = f != nil && !f.AtChance
		return answered[m]
	}
	between := 0
	for i, p := range r.Points {
		vm := r.verdictMasses[i]
		if len(vm) == 0 {
			continue
		}
		n := 0
		for _, m := range vm {
			if m > 0 && answers(m) {
				n++
			}
		}
		want := float64(n) / float64(len(vm))
		if want > 0 && want < 1 {
			between++
		}
		t.Logf("mass %g: verdict rate %.4f, locate answers %d of %d, averaged model %.4f", p.Mass, p.VerdictRate, n, len(vm),
			VerdictRateOf(vm, r.VerdictCurve(), r.Unit.Guess(), e.VerdictRoundTrials))
		if p.VerdictRate != want {
			t.Errorf("mass %g: verdict rate %v, locate's own forecast answers %d of the %d verdict masses (%v); step %.4g", p.Mass, p.VerdictRate, n, len(vm), want, r.LocateStep)
		}
	}
	if between == 0 {
		t.Errorf("no point where locate answers some verdict masses and not others: the case checks nothing")
	}
	t.Logf("step %.4g, %d AtMass masses checked", r.LocateStep, len(answered))
}
