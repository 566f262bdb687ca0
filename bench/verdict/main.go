// Command verdict measures how often locate's verdict (forecast.Judge:
// the evidence test, the source mass the release carries and the forecast
// at that mass) is wrong on planted releases of known strength:
//
//	go run ./bench/verdict -graph sbm:sizes=50x50x50x50,pin=0.2,pout=0.01,seed=2 \
//	    -tau 1 -epsilon 0.25,0.5,1,2,4,8 -releases 20
//
// For each ε (σ calibrated as a release would: discrete Gaussian, δ) and
// each source mass of forecast.MassGrid it plants -releases releases
// (a source of that mass at a uniformly drawn node, per-node noise σ),
// states the verdict on each as locate does, and compares it with the
// truth: the right-community rate r(μ) of releases of that mass, measured
// by -truth-trials independent trials, as κ = (r − g)/(1 − g), the share
// of the way from a guess g to certainty. Truly noise: κ < -noise-kappa;
// truly an answer: κ ≥ -answer-kappa; in between either verdict counts as
// right (docs/guarantee.md). One JSON line per (ε, mass) cell.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	"github.com/graphcloak/graphcloak/sensitivity"
)

type cell struct {
	Graph       string  `json:"graph"`
	Nodes       int     `json:"nodes"`
	Communities int     `json:"communities"`
	Tau         float64 `json:"tau"`
	Epsilon     float64 `json:"epsilon"`
	Sigma       float64 `json:"sigma"`
	Mass        float64 `json:"mass"`
	Rate        float64 `json:"rate"`
	Guess       float64 `json:"guess"`
	Kappa       float64 `json:"kappa"`
	Truth       string  `json:"truth"` // noise, answer, between
	Releases    int     `json:"releases"`
	Answers     int     `json:"answers"`
	Wrong       int     `json:"wrong"`
	MassLowMean float64 `json:"massLowMean"`
}

func floats(s string) []float64 {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			log.Fatalf("%q: %v", s, err)
		}
		out = append(out, v)
	}
	return out
}

func main() {
	graph := flag.String("graph", "", "graph spec (laplacian.Generate) or file:EDGES.csv")
	comms := flag.String("communities", "", "CSV node,community (default: planted, else Leiden)")
	name := flag.String("name", "", "name in the table (default: the spec)")
	tau := flag.Float64("tau", 1, "diffusion time τ")
	epsList := flag.String("epsilon", "0.25,0.5,1,2,4,8", "ε values")
	massList := flag.String("mass", "", "source masses (default: forecast.MassGrid, 0.1 … 1000)")
	delta := flag.Float64("delta", 1e-5, "δ")
	releases := flag.Int("releases", 20, "planted releases per (ε, mass)")
	trials := flag.Int("trials", 100, "forecast trials a round (locate --forecast-trials)")
	truthTrials := flag.Int("truth-trials", 800, "trials measuring the true rate of a mass")
	noiseK := flag.Float64("noise-kappa", 0.05, "κ below which a release is truly noise")
	answerK := flag.Float64("answer-kappa", 0.5, "κ at or above which a release is truly an answer")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if *name == "" {
		*name = *graph
	}
	ctx := context.Background()
	var g *laplacian.Graph
	var part []int
	var err error
	if p, ok := strings.CutPrefix(*graph, "file:"); ok {
		g, err = laplacian.LoadCSV(p, laplacian.Options{})
	} else {
		g, part, err = laplacian.Generate(*graph)
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
	part, k := community.Canonical(g, part)
	sens, err := sensitivity.Graph(g, *tau, 1, sensitivity.Options{})
	if err != nil {
		log.Fatal(err)
	}
	model, err := recovery.NewGraphModel(g, *tau, recovery.GraphOptions{})
	if err != nil {
		log.Fatal(err)
	}
	masses := forecast.MassGrid()
	if *massList != "" {
		masses = floats(*massList)
	}
	log.Printf("%s: %d nodes, %d edges, %d communities, Δ2 %.4g at τ = %g", *name, g.N(), g.NumEdges(), k, sens.Delta2, *tau)
	enc := json.NewEncoder(os.Stdout)
	n := g.N()
	for _, eps := range floats(*epsList) {
		cal, err := privacy.Calibrate(privacy.CalibrationParams{Sensitivity: sens.Delta2, Epsilon: eps, Delta: *delta, Mechanism: privacy.MechanismAnalytic})
		if err != nil {
			log.Fatal(err)
		}
		sigma := cal.Sigma
		base := forecast.Simulation{Graph: g, Partition: part, Tau: *tau, Sigma: sigma, Trials: *trials, Seed: *seed}
		for mi, mu := range masses {
			truth := base
			truth.Trials, truth.SourceMass, truth.Seed = *truthTrials, mu, *seed+1000003
			tr, err := forecast.Simulate(ctx, truth)
			if err != nil {
				log.Fatal(err)
			}
			f := forecast.Of(tr)
			c := cell{Graph: *name, Nodes: n, Communities: k, Tau: *tau, Epsilon: eps, Sigma: sigma, Mass: mu,
				Rate: tr.CommunityAccuracy, Guess: f.Guess(), Releases: *releases}
			c.Kappa = (c.Rate - c.Guess) / (1 - c.Guess)
			c.Truth = "between"
			switch {
			case c.Kappa < *noiseK:
				c.Truth = "noise"
			case c.Kappa >= *answerK:
				c.Truth = "answer"
			}
			rng := rand.New(rand.NewPCG(*seed, uint64(mi)<<32|uint64(math.Float64bits(eps)>>32)))
			f0, y := make([]float64, n), make([]float64, n)
			for r := range *releases {
				clear(f0)
				f0[rng.IntN(n)] = mu
				model.Apply(y, f0)
				for i := range y {
					y[i] += sigma * rng.NormFloat64()
				}
				prob := model.Problem(y, sigma)
				_, p := recovery.EvidenceTest{Seed: *seed + uint64(r), Partition: part}.PValue(prob)
				m := forecast.EstimateMass(model, y, sigma, *seed+uint64(r), nil)
				fe := base
				fe.Seed = *seed + 7*uint64(r)
				fc, err := forecast.AtMass(ctx, fe, m)
				if err != nil {
					log.Fatal(err)
				}
				v := forecast.Judge(fc, m, p)
				c.MassLowMean += m.Low / float64(*releases)
				if !v.Noise {
					c.Answers++
				}
				if (v.Noise && c.Truth == "answer") || (!v.Noise && c.Truth == "noise") {
					c.Wrong++
				}
			}
			if err := enc.Encode(c); err != nil {
				log.Fatal(err)
			}
		}
	}
}
