// Command utility measures what each way of releasing answers on one graph:
// the right-community rate of the per-node release (Gaussian noise on every
// node's value, σ from the certified Δ2) and of the private answer
// (privacy.CalibrateAnswer), the forecast's interval, and the ceiling no
// (ε, δ)-DP mechanism can beat (forecast.Ceiling). run.sh drives it over
// the graphs of docs/guarantee.md's utility table.
//
//	go run ./bench/utility -graph file:E.csv -communities C.csv -tau 0.3,1,3 -epsilon 0.5,1,2,4,8
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

func floats(s string) []float64 {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			log.Fatalf("bad number %q", f)
		}
		out = append(out, v)
	}
	return out
}

// row is one line of the table.
type row struct {
	Graph   string             `json:"graph"`
	Tau     float64            `json:"tau"`
	Epsilon float64            `json:"epsilon"`
	Ceiling float64            `json:"ceiling"`
	PerNode *forecast.Forecast `json:"perNode,omitempty"`
	Answer  *forecast.Forecast `json:"answer"`
	Delta2  float64            `json:"delta2,omitempty"`
	Exact   bool               `json:"delta2Exact,omitempty"`
	// Measured are independent runs (another seed, MeasureTrials trials)
	// the forecasts are checked against.
	MeasuredPerNode *forecast.Forecast `json:"measuredPerNode,omitempty"`
	MeasuredAnswer  *forecast.Forecast `json:"measuredAnswer,omitempty"`
}

func main() {
	graph := flag.String("graph", "rgg:n=20000,radius=0.02,seed=1", "graph spec (rgg:…, file:PATH, …)")
	name := flag.String("name", "", "graph name for the table (default: the spec)")
	comms := flag.String("communities", "", "CSV node,community (default: planted, else Leiden)")
	taus := flag.String("tau", "1", "τ values")
	epss := flag.String("epsilon", "0.5,1,2,4,8", "ε values")
	delta := flag.Float64("delta", 1e-6, "δ")
	trials := flag.Int("trials", 200, "trials per forecast")
	perNode := flag.Bool("per-node", true, "also forecast the per-node release (needs Δ2 at every τ)")
	perNodeTaus := flag.String("per-node-tau", "", "τ values at which to run the per-node release (default: all)")
	ceilingOnly := flag.Bool("ceiling-only", false, "print only the ceiling per ε (JSON lines graph, epsilon, ceiling) and the private answer's exact accuracy (accuracy, mechanism)")
	ceilingsFrom := flag.String("ceilings", "", "JSON lines of an earlier run: reuse the ceilings of this graph (-name) found there (they depend on the graph, partition, ε and δ only)")
	withAnswer := flag.Bool("answer", true, "with -ceiling-only, also calibrate the private answer (false: the ceiling alone, with its time)")
	measureTrials := flag.Int("measure-trials", 0, "trials of an independent measurement (seed+1000) beside each forecast (0: none)")
	measureDraws := flag.Int("measure-draws", 100, "private answers drawn per measured trial (one draw adds ±7 points of Bernoulli noise at 200 trials)")
	budget := flag.Duration("delta2-budget", 10*time.Minute, "time budget of each Δ2")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if *name == "" {
		*name = *graph
	}
	ctx := context.Background()
	spec := *graph
	var g *laplacian.Graph
	var part []int
	var err error
	if p, ok := strings.CutPrefix(spec, "file:"); ok {
		g, err = laplacian.LoadCSV(p, laplacian.Options{})
	} else {
		g, part, err = laplacian.Generate(spec)
	}
	if err != nil {
		log.Fatal(err)
	}
	if *comms != "" {
		if part, _, err = community.LoadAssignment(*comms, g); err != nil {
			log.Fatal(err)
		}
	}
	if part == nil {
		if part, err = community.Leiden(g, community.LeidenOptions{Seed: *seed}); err != nil {
			log.Fatal(err)
		}
	}
	cg, err := privacy.NewCommunityGeometry(ctx, g, part)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d nodes, %d edges, %d communities", *name, g.N(), g.NumEdges(), cg.K())
	enc := json.NewEncoder(os.Stdout)
	if *ceilingOnly {
		printCeilings(ctx, enc, g, cg, *name, floats(*epss), *delta, *withAnswer)
		return
	}
	ceiling := ceilingMemo(ctx, g, cg.Partition(), *delta)
	if *ceilingsFrom != "" {
		ceiling = ceilingsOf(*ceilingsFrom, *name, ceiling)
	}
	for _, tau := range floats(*taus) {
		var sens *sensitivity.Result
		if *perNode && (*perNodeTaus == "" || slices.Contains(floats(*perNodeTaus), tau)) {
			t0 := time.Now()
			s, err := sensitivity.Graph(g, tau, 1, sensitivity.Options{TimeBudget: *budget})
			if err != nil {
				log.Fatal(err)
			}
			sens = &s
			log.Printf("τ=%g: Δ2 %.4g (exact %v) in %s", tau, s.Delta2, s.Exact, time.Since(t0).Round(time.Millisecond))
		}
		// The private answer: recoveries simulated once per τ for every ε.
		epsList := floats(*epss)
		base0 := forecast.Simulation{Graph: g, Partition: cg.Partition(), Tau: tau, Delta: *delta, Trials: *trials, Seed: *seed}
		t0 := time.Now()
		answers, err := forecast.AnswerSweep(ctx, forecast.AnswerSimulation{Graph: &base0, Geometry: cg}, epsList)
		if err != nil {
			log.Fatal(err)
		}
		answerMillis := time.Since(t0).Milliseconds() / int64(len(epsList))
		var measured []*forecast.AnswerSimulationResult
		if *measureTrials > 0 {
			m := base0
			m.Trials, m.Seed = *measureTrials, *seed+1000
			if measured, err = forecast.AnswerSweep(ctx, forecast.AnswerSimulation{Graph: &m, Geometry: cg, Draws: *measureDraws}, epsList); err != nil {
				log.Fatal(err)
			}
		}
		for i, eps := range epsList {
			r := row{Graph: *name, Tau: tau, Epsilon: eps, Ceiling: ceiling(eps)}
			base := base0
			base.Epsilon = eps
			ar := answers[i]
			fa := forecast.OfAnswer(ar)
			fa.Millis = answerMillis
			r.Answer = &fa
			if measured != nil {
				mf := forecast.OfAnswer(measured[i])
				r.MeasuredAnswer = &mf
			}
			if sens != nil {
				pn := base
				pn.Sensitivity = sens
				t0 = time.Now()
				// locate's forecast: its AtChance is locate's noise verdict.
				f, err := forecast.PerNode(ctx, pn)
				if err != nil {
					log.Fatal(err)
				}
				f.Millis = time.Since(t0).Milliseconds()
				r.PerNode = &f
				if *measureTrials > 0 {
					m := pn
					m.Trials, m.Seed = *measureTrials, *seed+1000
					mr, err := forecast.Simulate(ctx, m)
					if err != nil {
						log.Fatal(err)
					}
					mf := forecast.Of(mr)
					r.MeasuredPerNode = &mf
				}
				r.Delta2, r.Exact = sens.Delta2, sens.Exact
			}
			if err := enc.Encode(r); err != nil {
				log.Fatal(err)
			}
			pn := "-"
			if r.PerNode != nil {
				pn = fmt.Sprintf("%.3f", r.PerNode.CommunityAccuracy)
			}
			log.Printf("τ=%g ε=%g: per-node %s, answer %.3f (%s cap %g ε′ %.3f), ceiling %.3f, chance %.4f", tau, eps, pn,
				fa.CommunityAccuracy, fa.Mechanism, ar.Calibration.Cap, ar.Calibration.Scale, r.Ceiling, fa.Chance)
		}
	}
}

// ceilingMemo returns forecast.RoutedCeiling at ε, computed once per ε
// (it does not depend on τ).
func ceilingMemo(ctx context.Context, g *laplacian.Graph, part []int, delta float64) func(eps float64) float64 {
	memo := map[float64]float64{}
	return func(eps float64) float64 {
		if _, ok := memo[eps]; !ok {
			memo[eps] = routedCeiling(ctx, g, part, eps, delta)
		}
		return memo[eps]
	}
}

// ceilingsOf returns the ceilings of graph name per ε read from the JSON
// lines at path (rows of this program, or of -ceiling-only), falling back
// to compute where a row is missing.
func ceilingsOf(path, name string, compute func(float64) float64) func(float64) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	known := map[float64]float64{}
	for line := range strings.Lines(string(data)) {
		var r struct {
			Graph   string  `json:"graph"`
			Epsilon float64 `json:"epsilon"`
			Ceiling float64 `json:"ceiling"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		if r.Graph == name && r.Ceiling > 0 {
			known[r.Epsilon] = r.Ceiling
		}
	}
	return func(eps float64) float64 {
		if c, ok := known[eps]; ok {
			return c
		}
		return compute(eps)
	}
}

// routedPairsFlag is the largest n·k the bench routes (beyond
// RoutedCeiling's default: the bench has the time).
var routedPairsFlag = flag.Int("routed-pairs", 1<<27, "largest n·k (nodes × communities) for the routed ceiling (above: the star bound)")

// routedCeiling is forecast.RoutedCeilingUpTo, fatal on cancellation.
func routedCeiling(ctx context.Context, g *laplacian.Graph, part []int, eps, delta float64) float64 {
	c, err := forecast.RoutedCeilingUpTo(ctx, g, part, eps, delta, *routedPairsFlag)
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// printCeilings prints, per ε, the ceiling, the seconds it took and (with
// answer) the exact accuracy of the private answer CalibrateAnswer picks
// (JSON lines).
func printCeilings(ctx context.Context, enc *json.Encoder, g *laplacian.Graph, cg *privacy.CommunityGeometry, name string, epss []float64, delta float64, answer bool) {
	for _, eps := range epss {
		t0 := time.Now()
		c := routedCeiling(ctx, g, cg.Partition(), eps, delta)
		out := map[string]any{"graph": name, "epsilon": eps, "ceiling": c, "ceilingSeconds": time.Since(t0).Seconds()}
		if answer {
			cal, err := privacy.CalibrateAnswer(ctx, cg, eps, 1, 0)
			if err != nil {
				log.Fatal(err)
			}
			out["accuracy"], out["mechanism"] = cal.Accuracy, cal.Mechanism
		}
		if err := enc.Encode(out); err != nil {
			log.Fatal(err)
		}
		log.Printf("ε=%g: %v", eps, out)
	}
}
