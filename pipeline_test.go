package graphcloak

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
	"gonum.org/v1/gonum/mat"
)

// heat returns exp(−τL)e_s by gonum's dense Padé exponential, an oracle
// independent of the expm package.
func heat(t *testing.T, g *laplacian.Graph, tau float64, s int) []float64 {
	t.Helper()
	n := g.N()
	L := g.Laplacian().Dense()
	A := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, -tau*L.At(i, j))
		}
	}
	var E mat.Dense
	E.Exp(A)
	y := make([]float64, n)
	for i := range y {
		y[i] = E.At(i, s)
	}
	return y
}

func ledger(t *testing.T, eps, delta float64) *privacy.FileLedger {
	t.Helper()
	l, err := privacy.CreateFileLedger(context.Background(), filepath.Join(t.TempDir(), "ledger.json"), privacy.Budget{Epsilon: eps, Delta: delta}, privacy.FileLedgerOptions{}, "test", "s")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestReleaseThenLocatePlantedSource(t *testing.T) {
	g, planted, err := laplacian.SBM([]int{20, 20, 20}, 0.5, 0.02, 3)
	if err != nil {
		t.Fatal(err)
	}
	const tau, src = 0.3, 25
	y := heat(t, g, tau, src)
	ctx := context.Background()
	led := ledger(t, 1e4, 1e-3)
	res, err := Release(ctx, ReleaseRequest{Graph: g, Values: y, Tau: tau, Alpha: 1, Epsilon: 2000, Delta: 1e-6,
		Ledger: led, Scope: "test", Epoch: "e1"})
	if err != nil {
		t.Fatal(err)
	}
	rel := res.Released
	// The ledger holds exactly the release's cost.
	bal, err := led.Balance(ctx, "test")
	if err != nil || len(bal) != 1 || bal[0].Releases != 1 || bal[0].RhoSpent < rel.Meta.Rho {
		t.Fatalf("ledger balance %+v, %v; want one release of ρ=%v", bal, err, rel.Meta.Rho)
	}
	// σ is at least what the calibration needs for the certified Δ2.
	cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: res.Sensitivity.Delta2, Epsilon: 2000, Delta: 1e-6, Mechanism: privacy.MechanismDiscrete})
	if err != nil || rel.Meta.Sigma < cal.Sigma {
		t.Errorf("σ = %v below calibration %v (%v)", rel.Meta.Sigma, cal.Sigma, err)
	}
	// The same epoch is never drawn twice.
	if _, err := Release(ctx, ReleaseRequest{Graph: g, Values: y, Tau: tau, Alpha: 1, Epsilon: 2000, Delta: 1e-6,
		Ledger: led, Scope: "test", Epoch: "e1", Sensitivity: &res.Sensitivity}); !errors.Is(err, privacy.ErrAlreadyCharged) {
		t.Errorf("second release of one epoch: %v, want ErrAlreadyCharged", err)
	}

	loc, err := Locate(ctx, LocateRequest{Graph: g, Released: rel, Tau: tau, Partition: planted})
	if err != nil {
		t.Fatal(err)
	}
	if loc.Report.NoSource || loc.Report.Communities[0].ID != planted[src] || loc.Report.Communities[0].Share < 0.9 {
		t.Fatalf("top community %+v, want planted block %d with share ≥ 0.9", loc.Report.Communities, planted[src])
	}
	sum := 0.0
	for i, nr := range loc.Nodes {
		if nr.Key != g.Key(i) || nr.CommunityID != planted[i] {
			t.Fatalf("node %d: %+v", i, nr)
		}
		if nr.CommunityID == planted[src] && (nr.Rank != 1 || nr.Probability != loc.Report.Communities[0].Share) {
			t.Errorf("node %d in the source block has rank %d probability %v", i, nr.Rank, nr.Probability)
		}
		sum += nr.Weight
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("posterior weights sum to %v, want 1", sum)
	}
}

func TestReleaseBudgetExhausted(t *testing.T) {
	g, _ := laplacian.Karate()
	y := make([]float64, g.N())
	y[0] = 1
	_, err := Release(context.Background(), ReleaseRequest{Graph: g, Values: y, Tau: 1, Alpha: 1, Epsilon: 5, Delta: 1e-6,
		Ledger: ledger(t, 1, 1e-6), Scope: "s", Epoch: "e"})
	var be *privacy.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("release past the budget: %v, want *privacy.BudgetError", err)
	}
}

func TestReleaseRefusesBadRequests(t *testing.T) {
	g, _ := laplacian.Karate()
	good := ReleaseRequest{Graph: g, Values: make([]float64, g.N()), Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6,
		Ledger: ledger(t, 10, 1e-5), Scope: "s", Epoch: "e"}
	tests := []struct {
		name  string
		mut   func(*ReleaseRequest)
		param string
	}{
		{"tau", func(j *ReleaseRequest) { j.Tau = 0 }, "tau"},
		{"alpha", func(j *ReleaseRequest) { j.Alpha = math.Inf(1) }, "alpha"},
		{"epsilon", func(j *ReleaseRequest) { j.Epsilon = -1 }, "epsilon"},
		{"delta", func(j *ReleaseRequest) { j.Delta = 1 }, "delta"},
		{"values", func(j *ReleaseRequest) { j.Values = j.Values[1:] }, "values"},
		{"ledger", func(j *ReleaseRequest) { j.Ledger = nil }, "ledger"},
	}
	for _, tc := range tests {
		j := good
		tc.mut(&j)
		_, err := Release(context.Background(), j)
		var je *ParamError
		if !errors.As(err, &je) || je.Param != tc.param {
			t.Errorf("%s: %v, want *ParamError for %s", tc.name, err, tc.param)
		}
	}
	bal, _ := good.Ledger.Balance(context.Background(), "s")
	if len(bal) == 1 && bal[0].Releases != 0 {
		t.Errorf("refused jobs charged the ledger: %+v", bal)
	}
}

func TestLocateNoSource(t *testing.T) {
	// Zero readings: BPDN finds f̂ = 0 (‖ỹ‖ ≤ η), so no community is named.
	g, part := laplacian.Karate()
	rel := &privacy.Released{Keys: g.Keys(), Values: make([]float64, g.N()), Meta: privacy.ReleaseMeta{Sigma: 1}}
	loc, err := Locate(context.Background(), LocateRequest{Graph: g, Released: rel, Tau: 1, Estimator: "bpdn", Partition: part})
	if err != nil {
		t.Fatal(err)
	}
	if !loc.Report.NoSource || len(loc.Report.Communities) != 0 || loc.Status != "no-source" {
		t.Fatalf("report %+v status %s, want no detectable source", loc.Report, loc.Status)
	}
	for _, nr := range loc.Nodes {
		if nr.Rank != 0 || nr.Probability != 0 || nr.Mass != 0 {
			t.Fatalf("node %+v has a rank without a source", nr)
		}
	}
	// A release missing a node is refused.
	rel.Keys, rel.Values = rel.Keys[1:], rel.Values[1:]
	if _, err := Locate(context.Background(), LocateRequest{Graph: g, Released: rel, Tau: 1}); !errors.Is(err, ErrMissingValue) {
		t.Errorf("missing node: %v, want ErrMissingValue", err)
	}
}

func TestEstimate(t *testing.T) {
	g, _ := laplacian.Karate()
	p, err := Estimate(EstimateRequest{Graph: g, Tau: 1, Alpha: 2, Epsilon: 1, Delta: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if p.NodeCount != 34 || p.RelationshipCount != 78 || p.Method != "dense" || p.Delta2Exact {
		t.Errorf("plan %+v", p)
	}
	// The bound α√2 is above the certified Δ2, so its σ is an upper bound.
	s, err := sensitivity.Graph(g, 1, 2, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Delta2 < s.Delta2 || p.Delta2 < 2*math.Sqrt2 {
		t.Errorf("bound Δ2 %v below certified %v or α√2", p.Delta2, s.Delta2)
	}
	exact, err := Estimate(EstimateRequest{Graph: g, Tau: 1, Alpha: 2, Epsilon: 1, Delta: 1e-5, Sensitivity: &s})
	if err != nil || exact.Sigma > p.Sigma || exact.Delta2 != s.Delta2 {
		t.Errorf("σ with certified Δ2 %v > σ with the bound %v (%v)", exact.Sigma, p.Sigma, err)
	}
	// Memory model: dense 32n² bytes plus the graph.
	if want := int64(32*34*34) + g.Bytes(); p.BytesEstimate != want {
		t.Errorf("bytes %d, want %d", p.BytesEstimate, want)
	}
	big, _, err := laplacian.Generate("grid:rows=100,cols=100")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Estimate(EstimateRequest{Graph: big, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-5}); err != nil || p.Method != "columns" {
		t.Errorf("10⁴-node grid: %+v %v, want columns", p, err)
	}
	if _, err := Estimate(EstimateRequest{Graph: g, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 0}); err == nil {
		t.Error("δ = 0 accepted")
	}
}

func TestReadValues(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]float64
		line     int
	}{
		{"header", "node,value\na,1.5\nb,-2\n", map[string]float64{"a": 1.5, "b": -2}, 0},
		{"no header", "a,1\n# comment\n\n b , 2e-3 \n", map[string]float64{"a": 1, "b": 2e-3}, 0},
		{"bom", "\ufeffa,1\n", map[string]float64{"a": 1}, 0},
		{"quoted key", "\"x,y\",3\n", map[string]float64{"x,y": 3}, 0},
		{"nan", "a,1\nb,NaN\n", nil, 2},
		{"inf", "a,+Inf\n", nil, 1},
		{"bad number", "node,value\na,12345.678x\n", nil, 2},
		{"three fields", "a,1,2\n", nil, 1},
		{"duplicate", "a,1\na,1\n", nil, 2},
		{"empty key", "a,1\n,2\n", nil, 2},
		{"empty", "node,value\n", nil, -1},
	}
	for _, tc := range tests {
		got, err := ReadValues(strings.NewReader(tc.in), "auto")
		if tc.want != nil {
			if err != nil || len(got) != len(tc.want) {
				t.Errorf("%s: %v %v", tc.name, got, err)
				continue
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: %s = %v, want %v", tc.name, k, got[k], v)
				}
			}
			continue
		}
		var ve *ValuesError
		if !errors.As(err, &ve) || (tc.line >= 0 && ve.Line != tc.line) {
			t.Errorf("%s: %v, want *ValuesError at line %d", tc.name, err, tc.line)
		}
		if err != nil && strings.Contains(err.Error(), "12345") {
			t.Errorf("%s: error quotes a private reading: %v", tc.name, err)
		}
	}
}

func TestValuesByKey(t *testing.T) {
	g, _ := laplacian.Karate()
	m := map[string]float64{}
	for i := 0; i < g.N(); i++ {
		m[g.Key(i)] = float64(i)
	}
	y, err := ValuesByKey(g, m)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range y {
		if v != float64(i) {
			t.Fatalf("y[%d] = %v", i, v)
		}
	}
	m["not-a-node"] = 1
	var ve *ValuesError
	if _, err := ValuesByKey(g, m); !errors.As(err, &ve) || ve.Key != "not-a-node" {
		t.Errorf("extra key: %v", err)
	}
	delete(m, "not-a-node")
	delete(m, g.Key(3))
	if _, err := ValuesByKey(g, m); !errors.Is(err, ErrMissingValue) {
		t.Errorf("missing key: %v", err)
	}
}

func FuzzReadValues(f *testing.F) {
	f.Add("node,value\na,1\nb,2\n")
	f.Add("a,1e308\nb,\"2\"\n")
	f.Add("\"unterminated,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ReadValues(strings.NewReader(in), "")
		if err != nil {
			return
		}
		for k, v := range m {
			if k == "" || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted %q = %v", k, v)
			}
		}
	})
}

func TestSensitivityCancelled(t *testing.T) {
	g, _ := laplacian.Karate()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sensitivity.GraphContext(ctx, g, 1, 1, sensitivity.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	s, err := sensitivity.GraphContext(context.Background(), g, 1, 1, sensitivity.Options{})
	want, err2 := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil || err2 != nil || s.Delta2 != want.Delta2 {
		t.Errorf("Sensitivity %v (%v), sensitivity.Graph %v (%v)", s.Delta2, err, want.Delta2, err2)
	}
}

func BenchmarkReadValues(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		var sb strings.Builder
		sb.WriteString("node,value\n")
		for i := 0; i < n; i++ {
			sb.WriteString("sensor-")
			sb.WriteString(strconv.Itoa(i))
			sb.WriteString(",0.")
			sb.WriteString(strconv.Itoa(i*7919%100000 + 1))
			sb.WriteString("\n")
		}
		data := sb.String()
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ReadValues(strings.NewReader(data), "auto"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The dry run names the method the release will use: Estimate and
// Sensitivity follow one chooser (sensitivity.ChooseMethod). The
// 800-node SBM at τ = 2 is the case where two copies of the cost model
// used to disagree.
func TestEstimateMethodMatchesSensitivity(t *testing.T) {
	cases := []struct {
		spec string
		taus []float64
	}{
		{"sbm:sizes=400x400,pin=0.05,pout=0.001", []float64{0.5, 2}},
		{"grid:rows=20,cols=30", []float64{1, 4}},
		{"path:n=350", []float64{0.1, 10}},
		{"pa:n=1500,m=2,seed=3", []float64{2}},
		{"grid:rows=12,cols=20", []float64{1}}, // n ≤ 300: always dense
	}
	seen := map[string]bool{}
	for _, c := range cases {
		g, _, err := laplacian.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, tau := range c.taus {
			p, err := Estimate(EstimateRequest{Graph: g, Tau: tau, Alpha: 1, Epsilon: 1, Delta: 1e-5})
			if err != nil {
				t.Fatal(err)
			}
			s, err := sensitivity.GraphContext(context.Background(), g, tau, 1, sensitivity.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := "columns"
			switch s.Method {
			case "dense-eigen":
				got = "dense"
			case "lanczos-edges":
				got = "lanczos"
			case "chebyshev-panels":
				got = "panels"
			case "slow-modes":
				got = "slow-modes"
			}
			if p.Method != got {
				t.Errorf("%s τ=%g: dry run says %s, the release computed Δ2 with %s", c.spec, tau, p.Method, s.Method)
			}
			seen[got] = true
		}
	}
	if !seen["dense"] || !seen["columns"] || !seen["lanczos"] {
		t.Errorf("the cases exercised only %v; all three methods must occur", seen)
	}
}

// TestReleaseSmooth: a smoothed release publishes exp(−τ′L)y (checked by
// unmasking keyed noise against the dense exponential), says τ + τ′ in its
// metadata, and is calibrated on Δ2 at τ + τ′ (at least that of a direct
// release of readings at τ + τ′, and below the unsmoothed one).
func TestReleaseSmooth(t *testing.T) {
	g, _, err := laplacian.SBM([]int{15, 15}, 0.5, 0.05, 4)
	if err != nil {
		t.Fatal(err)
	}
	const tau, smooth, src = 0.5, 1.5, 7
	y := heat(t, g, tau, src)
	key, err := privacy.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	led := ledger(t, 1e4, 1e-3)
	res, err := Release(ctx, ReleaseRequest{Graph: g, Values: y, Tau: tau, Smooth: smooth, Alpha: 1, Epsilon: 2, Delta: 1e-6,
		Noise: privacy.KeyedNoise(key), Ledger: led, Scope: "test", Epoch: "smooth"})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Released.Meta
	if m.Tau != tau+smooth || m.Smooth != smooth {
		t.Fatalf("meta τ = %v, smooth = %v", m.Tau, m.Smooth)
	}
	got, err := privacy.Unmask(key, res.Released)
	if err != nil {
		t.Fatal(err)
	}
	want := heat(t, g, tau+smooth, src)    // exp(−τ′L)exp(−τL)e_s
	grid := math.Ldexp(1, -m.GridExponent) // unmask returns values on the release's grid
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > grid {
			t.Fatalf("node %d: unmasked %.9f, exp(−(τ+τ′)L)e_s %.9f", i, got[i], want[i])
		}
	}
	direct, err := Release(ctx, ReleaseRequest{Graph: g, Values: want, Tau: tau + smooth, Alpha: 1, Epsilon: 2, Delta: 1e-6,
		Ledger: led, Scope: "test", Epoch: "direct"})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Release(ctx, ReleaseRequest{Graph: g, Values: y, Tau: tau, Alpha: 1, Epsilon: 2, Delta: 1e-6,
		Ledger: led, Scope: "test", Epoch: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if !(m.Sigma >= direct.Released.Meta.Sigma && m.Sigma < plain.Released.Meta.Sigma) {
		t.Fatalf("σ smoothed %v, direct at τ+τ′ %v, unsmoothed %v", m.Sigma, direct.Released.Meta.Sigma, plain.Released.Meta.Sigma)
	}
	if _, err := Release(ctx, ReleaseRequest{Graph: g, Values: y, Tau: tau, Smooth: -1, Alpha: 1, Epsilon: 2, Delta: 1e-6,
		Ledger: led, Scope: "test", Epoch: "neg"}); err == nil {
		t.Fatal("negative smoothing accepted")
	}
}

// Recalibrate is Estimate once Δ2 is known: the same estimate as
// Estimate with the sensitivity given, from one made without it.
func TestRecalibrateIsEstimateWithDelta2(t *testing.T) {
	g, _ := laplacian.Karate()
	req := EstimateRequest{Graph: g, Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6}
	before, err := Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sensitivity.Graph(g, 1, 1, sensitivity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req.Sensitivity = &s
	want, err := Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := before.Recalibrate(req)
	if err != nil {
		t.Fatal(err)
	}
	if *got != *want || got.Sigma == before.Sigma {
		t.Errorf("recalibrated %+v, want %+v (before %+v)", *got, *want, *before)
	}
}
