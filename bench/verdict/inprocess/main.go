// Command inprocess compares, in one process, plan's forecast verdict
// rate with locate's verdicts on planted releases (issue 73's power-grid
// row), and takes the forecast apart to say where they differ:
//
//	go run ./bench/verdict/inprocess -graph gt:power -communities C.csv \
//	    -sigma 0.4150642176217157 -mass 10 -sources 300 -source-seed 76
//
// It builds the graph in key order (as plan and locate do), the partition
// from -communities (`graphcloak communities --out`), and then
//
//  1. plan's curve (forecast.MassCurves, plan's trials and seed): its
//     verdict rate at -mass, what `plan` prints;
//  2. locate's forecast at a fine grid of masses (forecast.AtMass with
//     locate's seed and trials: locate's verdict is a function of the
//     verdict mass alone), and the curve's rate there measured afresh;
//  3. -sources planted releases of -mass units at nodes drawn as
//     bench/verdict/readings draws them (PCG seeded -source-seed, on the
//     graph as read), Gaussian noise σ: locate's verdict path on each —
//     the evidence test, EstimateMass, AtMass at the mass's lower bound,
//     Judge — against what plan's model (VerdictRateOf) predicts for the
//     same verdict masses: read off the grid alone (before issue 73's
//     fix), off the fine curve, off plan's verdict curve, and off
//     locate's seeded step (forecast.MassCurveResult.LocateStep: what
//     plan prints when it finds one) — release by release.
//
// One JSON line at the end holds the counts, for pooling.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/recovery"
)

func main() {
	spec := flag.String("graph", "gt:power", "graph: gt:NAME or a generator spec")
	comms := flag.String("communities", "", "CSV node,community (graphcloak communities --out); required")
	sigma := flag.Float64("sigma", 0.4150642176217157, "σ of the releases (plan's JSON: sigma)")
	mass := flag.Float64("mass", 10, "units at each planted source")
	sources := flag.Int("sources", 300, "planted releases")
	sourceSeed := flag.Uint64("source-seed", 76, "seed of the sources' nodes (bench/verdict/readings -seed)")
	noiseSeed := flag.Uint64("noise-seed", 1076, "seed of the releases' noise")
	seed := flag.Uint64("seed", 1, "plan's and locate's seed (write.randomSeed)")
	planTrials := flag.Int("plan-trials", 200, "plan's trials a mass")
	locTrials := flag.Int("locate-trials", 100, "locate's forecast trials a round")
	fineTrials := flag.Int("fine-trials", 400, "trials measuring the curve at each fine mass")
	fineSteps := flag.Int("fine-steps", 24, "fine masses, log-spaced over [fine-lo, fine-hi]")
	fineLo := flag.Float64("fine-lo", 1, "smallest fine mass")
	fineHi := flag.Float64("fine-hi", 10, "largest fine mass")
	exact := flag.Bool("exact", true, "run locate's forecast (AtMass) on every planted release")
	flag.Parse()
	if *comms == "" {
		log.Fatal("give -communities")
	}
	ctx := context.Background()
	cg, perm, cpart, k := benchgraph.InKeyOrder(*spec, *comms)
	n := cg.N()
	log.Printf("%s: %d nodes, %d communities, σ %.6g", *spec, n, k, *sigma)

	base := forecast.Simulation{Graph: cg, Partition: cpart, Tau: 1, Sigma: *sigma, Sources: 1, Seed: *seed}

	// 1. plan's curve.
	pe := base
	pe.Trials, pe.Verdicts, pe.VerdictRoundTrials = *planTrials, true, *locTrials
	curves, err := forecast.MassCurves(ctx, []forecast.Simulation{pe}, *seed)
	if err != nil {
		log.Fatal(err)
	}
	curve := curves[0].Points
	guess := curves[0].Unit.Guess()
	planRate := math.NaN()
	for _, p := range curve {
		log.Printf("plan curve: mass %-6g rate %.3f verdict rate %.3f (%d)", p.Mass, p.CommunityAccuracy, p.VerdictRate, p.VerdictTrials)
		if p.Mass == *mass {
			planRate = p.VerdictRate
		}
	}
	step := curves[0].LocateStep
	log.Printf("plan: verdict rate %.3f at %g units, guess %.4f; locate's step %.4g (0: none, the averaged model)", planRate, *mass, guess, step)
	vc := curves[0].VerdictCurve()
	for _, p := range vc {
		log.Printf("plan's verdict curve: mass %-6.4g rate %.3f", p.Mass, p.CommunityAccuracy)
	}

	// 2. locate's forecast and the curve at fine masses.
	le := base
	le.Trials = *locTrials
	var fine []forecast.MassPoint
	for i := range max(*fineSteps, 0) {
		m := *fineLo * math.Pow(*fineHi / *fineLo, float64(i)/float64(*fineSteps-1))
		f, err := forecast.AtMass(ctx, le, forecast.GivenMass(m, ""))
		if err != nil {
			log.Fatal(err)
		}
		te := base
		te.Trials, te.SourceMass, te.Seed = *fineTrials, m, *seed+uint64(1000+i)
		r, err := forecast.Simulate(ctx, te)
		if err != nil {
			log.Fatal(err)
		}
		fine = append(fine, forecast.MassPoint{Mass: m, CommunityAccuracy: r.CommunityAccuracy})
		log.Printf("fine: mass %.4g: curve %.3f (%d trials); locate's forecast %.3f of %d → answer %v; P(answer) at the curve's rate %.3f",
			m, r.CommunityAccuracy, r.Trials, f.CommunityAccuracy, f.Trials, !f.AtChance, forecast.PerNodeAnswers(r.CommunityAccuracy, guess, *locTrials))
	}
	// The fine curve: plan's points outside the fine range.
	var fineCurve []forecast.MassPoint
	for _, p := range curve {
		if len(fine) == 0 || p.Mass < fine[0].Mass {
			fineCurve = append(fineCurve, p)
		}
	}
	fineCurve = append(fineCurve, fine...)
	for _, p := range curve {
		if len(fine) == 0 || p.Mass > fine[len(fine)-1].Mass {
			fineCurve = append(fineCurve, p)
		}
	}

	// 3. planted releases, locate's verdict path.
	model, err := recovery.NewGraphModel(cg, 1, recovery.GraphOptions{})
	if err != nil {
		log.Fatal(err)
	}
	test := recovery.EvidenceTest{Seed: *seed, Partition: cpart}
	var null []float64
	srng := rand.New(rand.NewPCG(*sourceSeed, 0)) // readings' draws
	nrng := rand.New(rand.NewPCG(*noiseSeed, 1))
	f0, y := make([]float64, n), make([]float64, n)
	masses := make([]float64, 0, *sources)
	var answers, evidenceNoise, massZero, stepAnswers, stepMisses int
	var planModel, fineModel, verdictModel float64
	for r := range *sources {
		src := perm[srng.IntN(n)]
		clear(f0)
		f0[src] = *mass
		model.Apply(y, f0)
		for i := range y {
			y[i] += *sigma * nrng.NormFloat64()
		}
		p := model.Problem(y, *sigma)
		if null == nil {
			null = test.Null(p)
		}
		pv := recovery.PValueOf(test.Statistic(p), null)
		m := forecast.EstimateMass(model, y, *sigma, *seed, nil)
		vm := m.Low
		if pv > recovery.NoiseLevel {
			vm = 0
			evidenceNoise++
		}
		if !(m.Low > 0) {
			massZero++
		}
		masses = append(masses, vm)
		one := forecast.VerdictRateOf([]float64{vm}, curve, guess, *locTrials)
		two := forecast.VerdictRateOf([]float64{vm}, fineCurve, guess, *locTrials)
		three := forecast.VerdictRateOf([]float64{vm}, vc, guess, *locTrials)
		verdictModel += three
		planModel += one
		fineModel += two
		ans, byStep := -1, vm > 0 && vm >= step
		if byStep {
			stepAnswers++
		}
		if *exact {
			var f *forecast.Forecast
			if vm > 0 {
				if f, err = forecast.AtMass(ctx, le, m); err != nil {
					log.Fatal(err)
				}
			}
			v := forecast.Judge(f, m, pv)
			ans = 0
			if !v.Noise {
				ans = 1
				answers++
			}
			if step > 0 && (ans == 1) != byStep {
				stepMisses++
			}
		}
		fmt.Printf("release %d: node %d p %.3g mass %.3f low %.3f → grid %.3f, fine %.3f, verdict curve %.3f, locate %d\n", r, src, pv, m.Mass, vm, one, two, three, ans)
	}
	N := float64(*sources)
	sorted := slices.Clone(masses)
	slices.Sort(sorted)
	q := func(x float64) float64 { return sorted[min(len(sorted)-1, int(x*N))] }
	log.Printf("verdict masses: quantiles 10%% %.3f 25%% %.3f 50%% %.3f 75%% %.3f 90%% %.3f; evidence noise %d, mass 0 %d", q(0.1), q(0.25), q(0.5), q(0.75), q(0.9), evidenceNoise, massZero)
	log.Printf("over %d releases: locate %d (%.3f); plan's model on their masses: the grid %.3f, the fine curve %.3f, plan's verdict curve %.3f; plan printed %.3f",
		*sources, answers, float64(answers)/N, planModel/N, fineModel/N, verdictModel/N, planRate)
	log.Printf("locate's step %.4g: answers %d of %d (%.3f); releases whose verdict locate called otherwise than the step: %d", step, stepAnswers, *sources, float64(stepAnswers)/N, stepMisses)
	out := map[string]any{"locateStep": step, "stepAnswers": stepAnswers, "stepMisses": stepMisses, "graph": *spec, "mass": *mass, "sources": *sources, "sourceSeed": *sourceSeed, "locateAnswers": answers,
		"locateRate": float64(answers) / N, "planModelRate": planModel / N, "fineModelRate": fineModel / N, "verdictCurveRate": verdictModel / N, "planRate": planRate,
		"verdictMasses": masses}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}
