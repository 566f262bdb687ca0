// Command plancurves times plan's step "forecasts by source mass"
// (forecast.MassCurves: the curves of every ε, their verdict curves'
// refinement masses and locate's step) on one graph, in CPU seconds of
// this process (the machine may be shared: quote CPU, not wall), and
// prints each curve's points, verdict rates and refinement count, so that
// two builds can be compared point by point (issue 79, item 1):
//
//	go run ./bench/plancurves -graph file:lfr.csv -communities comm.csv \
//	    -sigmas 3.84,1.92,0.96,0.48,0.24
//
// The σ default to those of ε = 0.5 … 8 at Δ2 ≈ 0.4, δ = 1e-5 (the
// analytic Gaussian's order): plan's five ε without computing Δ2.
// -foresee first prices the step as plan's estimate does
// (forecast.ForeseeMassCurves) and prints it beside the CPU time taken;
// -cpuprofile writes a profile of the curves.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/cputime"
)

func main() {
	spec := flag.String("graph", "gt:karate", "graph: gt:NAME, file:PATH or a generator spec")
	comms := flag.String("communities", "", "CSV node,community; required")
	sigmas := flag.String("sigmas", "3.84,1.92,0.96,0.48,0.24", "the curves' σ, comma-separated")
	trials := flag.Int("trials", 200, "plan's trials a round (--trials)")
	rounds := flag.Int("locate-trials", 100, "locate's forecast trials a round")
	seed := flag.Uint64("seed", 1, "plan's seed")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the curves to this file")
	foresee := flag.Bool("foresee", false, "first foresee the step's seconds as plan does (forecast.ForeseeMassCurves)")
	flag.Parse()
	if *comms == "" {
		log.Fatal("give -communities")
	}
	g, _, part, k := benchgraph.InKeyOrder(*spec, *comms)
	base := forecast.Simulation{Graph: g, Partition: part, Tau: 1, Sources: 1, Seed: *seed, Trials: *trials,
		VerdictRoundTrials: *rounds, Verdicts: true}
	var es []forecast.Simulation
	for _, s := range strings.Split(*sigmas, ",") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			log.Fatal(err)
		}
		e := base
		e.Sigma = v
		es = append(es, e)
	}
	last := 0
	es[0].Progress = func(done, total int) {
		if done*10/max(total, 1) != last*10/max(total, 1) {
			log.Printf("bar %d/%d", done, total)
		}
		last = done
	}
	log.Printf("%s: %d nodes, %d communities, %d curves", *spec, g.N(), k, len(es))
	foreseen := -1.0
	if *foresee {
		w, err := forecast.ForeseeMassCurves(context.Background(), es, *seed)
		if err != nil {
			log.Fatal(err)
		}
		foreseen = w.Seconds(*trials, w.Pilot)
	}
	stop := startProfile(*profile)
	cpu0, wall := cputime.Process(), time.Now()
	rs, err := forecast.MassCurves(context.Background(), es, *seed)
	if err != nil {
		log.Fatal(err)
	}
	cpu := cputime.Process() - cpu0
	stop()
	for j, r := range rs {
		fmt.Printf("σ %g: resolvable %g, locate step %.4g, verdict curve %d masses (%d added)\n", es[j].Sigma, r.Resolvable, r.LocateStep,
			len(r.VerdictCurve()), len(r.VerdictCurve())-len(r.Points))
		for _, p := range r.Points {
			fmt.Printf("  mass %-6g rate %.3f [%.3f, %.3f] verdict rate %.3f (%d)\n", p.Mass, p.CommunityAccuracy, p.Low, p.High, p.VerdictRate, p.VerdictTrials)
		}
	}
	fmt.Printf("forecasts by source mass: %.1f CPU-s of this process, %.1f s wall\n", cpu, time.Since(wall).Seconds())
	if foreseen >= 0 {
		fmt.Printf("foreseen %.1f s with the machine's %d cores its own; took %.1f CPU-s / %d = %.1f s\n",
			foreseen, runtime.GOMAXPROCS(0), cpu, runtime.GOMAXPROCS(0), cpu/float64(runtime.GOMAXPROCS(0)))
	}
}

// startProfile starts a CPU profile written to path (none when empty) and
// returns what stops it.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
