// Command recovery-bench compares graphcloak's recovery estimators and
// exports identical BPDN instances for the peer comparison in compare.py.
//
//	go run ./bench/recovery -out DIR            # quality table + instances
//	bash bench/recovery/run.sh                  # everything, with peers
//
// Simulation noise here comes from math/rand/v2 (seeded): these are
// benchmarks of the estimators, not privacy releases.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
	"gonum.org/v1/gonum/mat"
)

type instance struct {
	Name     string    `json:"name"`
	M, N     int       `json:"-"`
	Rows     int       `json:"m"`
	Cols     int       `json:"n"`
	Matrix   []float64 `json:"M"` // row-major m×n
	Y        []float64 `json:"y"`
	Eta      float64   `json:"eta"`
	GoStatus string    `json:"go_status"`
	GoObj    *float64  `json:"go_obj"` // null when not solved
	GoGap    *float64  `json:"go_gap"`
	GoSec    float64   `json:"go_seconds"`       // median solve time, model given
	GoModel  float64   `json:"go_model_seconds"` // model construction from M
	GoForm   string    `json:"go_form"`          // "dense" or "spectral"
}

func main() {
	out := flag.String("out", "bench-out", "directory for instance files")
	trials := flag.Int("trials", 100, "graph trials per estimator for the quality tables (0: skip them)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	if *trials > 0 {
		graphQuality(*trials, 1)
		graphQuality(*trials, 2)
		lineQuality()
	}
	var inst []instance
	inst = append(inst, graphInstances()...)
	inst = append(inst, lineInstances()...)
	for _, in := range inst {
		b, err := json.Marshal(in)
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(*out, in.Name+".json"), b, 0o644); err != nil {
			fail(err)
		}
	}
	fmt.Printf("\nwrote %d BPDN instances to %s\n", len(inst), *out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "recovery-bench:", err)
	os.Exit(1)
}

// graphSetting is the paper's Figure 2 setting.
func graphSetting() (*laplacian.Graph, []int, *recovery.Model, float64, float64) {
	g, block, err := laplacian.SBM([]int{250, 250}, 0.05, 0.001, 1)
	if err != nil {
		fail(err)
	}
	start := time.Now()
	md, err := recovery.NewGraphModel(g, 2, recovery.GraphOptions{Form: recovery.FormSpectral})
	if err != nil {
		fail(err)
	}
	build := time.Since(start).Seconds()
	start = time.Now()
	if _, err := recovery.NewGraphModel(g, 2, recovery.GraphOptions{Form: recovery.FormDense}); err != nil {
		fail(err)
	}
	buildDense := time.Since(start).Seconds()
	sens, err := sensitivity.Graph(g, 2, 1, sensitivity.Options{})
	if err != nil {
		fail(err)
	}
	sigma, err := privacy.AnalyticSigma(sens.Delta2, 4, 0.1)
	if err != nil {
		fail(err)
	}
	fmt.Printf("graph setting: SBM 250+250 p_in 0.05 p_out 0.001 seed 1, |E| = %d, τ = 2, Δ2 = %.5g, ε = 4, δ = 0.1 → σ = %.5g; kept modes %d of %d; model build: spectral %.2fs, dense (Chebyshev) %.2fs\n",
		g.NumEdges(), sens.Delta2, sigma, md.Rank(), g.N(), build, buildDense)
	return g, block, md, sigma, build
}

// graphQuality runs every estimator on the same noisy draws with k unit
// sources at uniform random nodes and reports how often an answer was
// given, the community hit rate (the community holding the most recovered
// mass / posterior mass holds a source), the overlap Σ_c min(recovered
// share of c, true share of c) of the community distributions (for k = 1:
// the probability given to the true community), the mean hop EMD, and
// the time per solve.
func graphQuality(trials, k int) {
	g, block, md, sigma, _ := graphSetting()
	n := g.N()
	rng := rand.New(rand.NewPCG(7, 7))
	type acc struct {
		hit, answered, emdN int
		emd, secs           float64
		pAtTrueComm         float64
	}
	names := []string{"posterior", "greedy", "massls", "bpdn(tail η)", "bpdn(paper η)"}
	res := make([]acc, len(names))
	y0 := make([]float64, n)
	for t := 0; t < trials; t++ {
		f0 := make([]float64, n)
		trueComm := make([]float64, 2)
		for len(nonzero(f0)) < k {
			s := rng.IntN(n)
			if f0[s] == 0 {
				f0[s] = 1
				trueComm[block[s]] += 1 / float64(k)
			}
		}
		md.Apply(y0, f0)
		y := make([]float64, n)
		for i := range y {
			y[i] = y0[i] + sigma*rng.NormFloat64()
		}
		for k, name := range names {
			p := md.Problem(y, sigma)
			p.Sources = len(nonzero(f0))
			e := namedEstimator(name, p)
			start := time.Now()
			est, err := e.Estimate(p)
			res[k].secs += time.Since(start).Seconds()
			if err != nil || est.Status != recovery.Solved {
				continue
			}
			mass := est.F
			if est.Posterior != nil {
				mass = est.Posterior
			}
			comm := make([]float64, 2)
			for i, x := range mass {
				comm[block[i]] += x
			}
			tot := comm[0] + comm[1]
			if tot <= 0 {
				continue
			}
			res[k].answered++
			top := 0
			if comm[1] > comm[0] {
				top = 1
			}
			if trueComm[top] > 0 {
				res[k].hit++
			}
			res[k].pAtTrueComm += math.Min(comm[0]/tot, trueComm[0]) + math.Min(comm[1]/tot, trueComm[1])
			if d, err := recovery.EMDGraph(g, f0, est.F); err == nil {
				res[k].emd += d
				res[k].emdN++
			}
		}
	}
	fmt.Printf("\nestimator quality, graph setting, %d trials, k = %d uniform random unit sources:\n", trials, k)
	fmt.Printf("%-15s %9s %12s %14s %10s %10s\n", "estimator", "answered", "comm. hits", "comm. overlap", "mean EMD", "ms/solve")
	for k, name := range names {
		r := res[k]
		fmt.Printf("%-15s %9d %7d/%-4d %14.3f %10.3f %10.2f\n", name, r.answered, r.hit, trials,
			div(r.pAtTrueComm, r.answered), div(r.emd, r.emdN), 1000*r.secs/float64(trials))
	}
}

func nonzero(f []float64) []int {
	var out []int
	for i, x := range f {
		if x != 0 {
			out = append(out, i)
		}
	}
	return out
}

func div(a float64, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / float64(b)
}

// lineQuality is the paper's Figure 1 setting, 20 trials per estimator.
func lineQuality() {
	const n, m, trials = 100, 50, 20
	md, err := recovery.NewLineModel(n, m, 0.05)
	if err != nil {
		fail(err)
	}
	f0 := make([]float64, n)
	f0[23], f0[75] = 1, 1
	y0 := make([]float64, m)
	md.Apply(y0, f0)
	rng := rand.New(rand.NewPCG(2026, 1))
	names := []string{"posterior", "greedy", "massls", "bpdn(tail η)", "bpdn(paper η)"}
	emd := make([]float64, len(names))
	cnt := make([]int, len(names))
	for t := 0; t < trials; t++ {
		y := make([]float64, m)
		for i := range y {
			y[i] = y0[i] + 0.1*rng.NormFloat64()
		}
		for k, name := range names {
			p := md.Problem(y, 0.1)
			p.Sources = 2
			e := namedEstimator(name, p)
			est, err := e.Estimate(p)
			if err != nil || est.Status != recovery.Solved {
				continue
			}
			if d, err := recovery.EMDLine(f0, est.F, 1.0/n); err == nil {
				emd[k] += d
				cnt[k]++
			}
		}
	}
	fmt.Printf("\nestimator quality, line setting (n=100, m=50, T=0.05, σ=0.1, sources 0.24/0.76, k=2), %d trials:\n", trials)
	fmt.Printf("%-15s %9s %10s\n", "estimator", "solved", "mean EMD")
	for k, name := range names {
		fmt.Printf("%-15s %9d %10.4f\n", name, cnt[k], div(emd[k], cnt[k]))
	}
}

func denseMatrix(md *recovery.Model) []float64 {
	m, n := md.M(), md.N()
	out := make([]float64, m*n)
	e := make([]float64, n)
	col := make([]float64, m)
	for j := 0; j < n; j++ {
		e[j] = 1
		md.Apply(col, e)
		e[j] = 0
		for i := 0; i < m; i++ {
			out[i*n+j] = col[i]
		}
	}
	return out
}

func timeBPDN(p *recovery.Problem) (*recovery.Estimate, float64) {
	var est *recovery.Estimate
	var times []float64
	for rep := 0; rep < 7; rep++ {
		start := time.Now()
		e, err := recovery.BPDN{}.Estimate(p)
		times = append(times, time.Since(start).Seconds())
		if err != nil {
			fail(err)
		}
		est = e
	}
	sort.Float64s(times)
	return est, times[len(times)/2]
}

// export times BPDN on exactly the matrix the peers get, in both model
// forms built from the exported M — dense (NewDenseMatrixModel: a copy
// plus column norms) and spectral (NewMatrixModel: a thin SVD) — and
// keeps the form with the smaller build + solve time.
func export(name string, md *recovery.Model, p *recovery.Problem, _ float64, M []float64) instance {
	A := mat.NewDense(md.M(), md.N(), M)
	best := instance{}
	for _, form := range []string{"dense", "spectral"} {
		var builds []float64
		var fm *recovery.Model
		for rep := 0; rep < 3; rep++ {
			start := time.Now()
			if form == "dense" {
				fm = recovery.NewDenseMatrixModel(A)
			} else {
				var err error
				if fm, err = recovery.NewMatrixModel(A); err != nil {
					fail(err)
				}
			}
			builds = append(builds, time.Since(start).Seconds())
		}
		sort.Float64s(builds)
		build := builds[1]
		q := fm.Problem(p.Y, p.Sigma)
		q.Eta, q.Beta = p.Eta, p.Beta
		est, sec := timeBPDN(q)
		in := instance{Name: name, Rows: md.M(), Cols: md.N(), Matrix: M, Y: p.Y, Eta: q.EtaValue(), GoForm: form,
			GoStatus: est.Status.String(), GoObj: finite(est.Objective), GoGap: finite(est.Gap), GoSec: sec, GoModel: build}
		if best.GoForm == "" || in.GoSec+in.GoModel < best.GoSec+best.GoModel {
			best = in
		}
	}
	return best
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// graphInstances exports the first three solved and one infeasible draw
// (η = σ√m) of the graph setting.
func graphInstances() []instance {
	g, _, md, sigma, build := graphSetting()
	n := g.N()
	M := denseMatrix(md)
	rng := rand.New(rand.NewPCG(11, 11))
	var out []instance
	solved, infeasible := 0, 0
	y0 := make([]float64, n)
	for t := 0; t < 400 && (solved < 3 || infeasible < 1); t++ {
		f0 := make([]float64, n)
		f0[rng.IntN(250)] = 1
		md.Apply(y0, f0)
		y := make([]float64, n)
		for i := range y {
			y[i] = y0[i] + sigma*rng.NormFloat64()
		}
		p := md.Problem(y, sigma)
		p.Eta = recovery.EtaPaper
		est, err := recovery.BPDN{}.Estimate(p)
		if err != nil {
			continue
		}
		switch {
		case est.Status == recovery.Solved && solved < 3:
			solved++
			out = append(out, export(fmt.Sprintf("graph500_solved%d", solved), md, p, build, M))
		case est.Status == recovery.Infeasible && infeasible < 1:
			infeasible++
			out = append(out, export("graph500_infeasible", md, p, build, M))
		}
	}
	return out
}

// lineInstances exports three draws of the Figure 1 setting per η rule.
func lineInstances() []instance {
	const n, m = 100, 50
	var md *recovery.Model
	var builds []float64
	for rep := 0; rep < 7; rep++ { // median build time
		start := time.Now()
		var err error
		md, err = recovery.NewLineModel(n, m, 0.05)
		if err != nil {
			fail(err)
		}
		builds = append(builds, time.Since(start).Seconds())
	}
	sort.Float64s(builds)
	build := builds[len(builds)/2]
	M := denseMatrix(md)
	f0 := make([]float64, n)
	f0[23], f0[75] = 1, 1
	y0 := make([]float64, m)
	md.Apply(y0, f0)
	rng := rand.New(rand.NewPCG(5, 5))
	var out []instance
	for t := 0; t < 3; t++ {
		y := make([]float64, m)
		for i := range y {
			y[i] = y0[i] + 0.1*rng.NormFloat64()
		}
		for _, rule := range []recovery.EtaRule{recovery.EtaPaper, recovery.EtaTail} {
			p := md.Problem(y, 0.1)
			p.Eta = rule
			out = append(out, export(fmt.Sprintf("line100x50_%s_%d", rule, t+1), md, p, build, M))
		}
	}
	return out
}

// namedEstimator maps a table row name to its estimator; the paper's η
// rule is set on p for "bpdn(paper η)".
func namedEstimator(name string, p *recovery.Problem) recovery.Estimator {
	switch name {
	case "greedy":
		return recovery.Greedy{}
	case "massls":
		return recovery.MassLS{}
	case "bpdn(tail η)":
		return recovery.BPDN{}
	case "bpdn(paper η)":
		p.Eta = recovery.EtaPaper
		return recovery.BPDN{}
	}
	return recovery.Posterior{}
}
