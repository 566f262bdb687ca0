package recovery

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func TestEtaRules(t *testing.T) {
	tests := []struct {
		rule        EtaRule
		m           int
		sigma, beta float64
		want        float64 // by hand
	}{
		{EtaPaper, 50, 0.1, 0, 0.1 * math.Sqrt(50)},
		// t = ln 100; 50 + 2·sqrt(50t) + 2t
		{EtaTail, 50, 0.1, 0.01, 0.1 * math.Sqrt(50+2*math.Sqrt(50*math.Log(100))+2*math.Log(100))},
		{EtaTail, 50, 0.1, 0, 0.1 * math.Sqrt(50+2*math.Sqrt(50*math.Log(100))+2*math.Log(100))}, // default β
		{EtaTail, 1, 2, math.Exp(-1), 2 * math.Sqrt(1+2+2)},
	}
	for _, tc := range tests {
		if got := tc.rule.Eta(tc.m, tc.sigma, tc.beta); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%v m=%d σ=%v β=%v: η = %v, want %v", tc.rule, tc.m, tc.sigma, tc.beta, got, tc.want)
		}
	}
}

// TestEtaTailCoverage checks the Laurent–Massart bound by simulation:
// P(‖N(0, σ²I_m)‖ > η) ≤ β.
func TestEtaTailCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 1))
	const draws, m, beta = 20000, 30, 0.05
	eta := EtaTail.Eta(m, 1, beta)
	exceed := 0
	for d := 0; d < draws; d++ {
		s := 0.0
		for i := 0; i < m; i++ {
			x := rng.NormFloat64()
			s += x * x
		}
		if math.Sqrt(s) > eta {
			exceed++
		}
	}
	frac := float64(exceed) / draws
	if sd := math.Sqrt(beta * (1 - beta) / draws); frac > beta+4*sd {
		t.Errorf("tail η exceeded in %.4f of draws, bound %v", frac, beta)
	}
	// The paper's η = σ√m is exceeded about half of the time.
	paper := EtaPaper.Eta(m, 1, 0)
	exceed = 0
	for d := 0; d < draws; d++ {
		s := 0.0
		for i := 0; i < m; i++ {
			x := rng.NormFloat64()
			s += x * x
		}
		if math.Sqrt(s) > paper {
			exceed++
		}
	}
	if f := float64(exceed) / draws; f < 0.4 || f > 0.5 {
		t.Errorf("σ√m exceeded in %.3f of draws; P(χ²₃₀ > 30) ≈ 0.47", f)
	}
}

func TestProblemValidation(t *testing.T) {
	md, err := NewLineModel(10, 5, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	good := func() *Problem { return md.Problem(make([]float64, 5), 0.1) }
	tests := []struct {
		name string
		mod  func(p *Problem)
	}{
		{"short y", func(p *Problem) { p.Y = p.Y[:4] }},
		{"nan y", func(p *Problem) { p.Y[2] = math.NaN() }},
		{"zero sigma", func(p *Problem) { p.Sigma = 0 }},
		{"inf sigma", func(p *Problem) { p.Sigma = math.Inf(1) }},
		{"negative sources", func(p *Problem) { p.Sources = -1 }},
		{"too many sources", func(p *Problem) { p.Sources = 11 }},
		{"negative mass", func(p *Problem) { p.Mass = -1 }},
		{"beta one", func(p *Problem) { p.Beta = 1 }},
		{"no model", func(p *Problem) { p.Model = nil }},
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid problem rejected: %v", err)
	}
	for _, tc := range tests {
		p := good()
		tc.mod(p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		for _, name := range Names() {
			e, _ := ByName(name)
			if _, err := e.Estimate(p); err == nil {
				t.Errorf("%s: %s accepted an invalid problem", tc.name, name)
			}
		}
	}
	if _, err := NewLineModel(0, 5, 0.05); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := NewLineModel(10, 5, -1); err == nil {
		t.Error("T < 0 accepted")
	}
	g := mustGraph(t, 3, pathEdges(3))
	if _, err := NewGraphModel(g, 0, GraphOptions{}); err == nil {
		t.Error("τ = 0 accepted")
	}
}

func TestEstimateJSON(t *testing.T) {
	md, err := NewLineModel(20, 10, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 10)
	for i := range y {
		y[i] = -1 // infeasible: DualBound = +Inf, Gap = NaN
	}
	for _, name := range Names() {
		e, _ := ByName(name)
		est, err := e.Estimate(md.Problem(y, 0.01))
		if err != nil {
			continue
		}
		b, err := json.Marshal(est)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil || back["status"] != est.Status.String() {
			t.Errorf("%s: round trip %s (%v)", name, b, err)
		}
	}
}
