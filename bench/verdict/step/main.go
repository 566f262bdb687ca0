// Command step scans locate's own verdict forecast (forecast.AtMass with
// locate's seed and trials, the graph in key order) over log-spaced
// source masses: with a fixed seed locate's verdict is a function of the
// verdict mass alone, and plan reads its rate off that function's step
// (forecast.LocateStep) — which holds only when the answers are monotone
// in mass. It prints each mass's forecast and answer, and the turns.
//
//	go run ./bench/verdict/step -graph gt:power -communities C.csv \
//	    -sigma 0.4150642176217157 -lo 1.2 -hi 2.2 -steps 20
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"

	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/forecast"
)

func main() {
	spec := flag.String("graph", "gt:power", "graph: gt:NAME or a generator spec")
	comms := flag.String("communities", "", "CSV node,community (graphcloak communities --out); required")
	sigma := flag.Float64("sigma", 0.4150642176217157, "σ of the releases")
	seed := flag.Uint64("seed", 1, "locate's seed (write.randomSeed)")
	trials := flag.Int("trials", 100, "locate's forecast trials a round")
	lo := flag.Float64("lo", 1.2, "smallest mass")
	hi := flag.Float64("hi", 2.2, "largest mass")
	steps := flag.Int("steps", 20, "masses, log-spaced over [lo, hi]")
	flag.Parse()
	if *comms == "" || *steps < 2 {
		log.Fatal("give -communities and -steps ≥ 2")
	}
	ctx := context.Background()
	cg, _, cpart, _ := benchgraph.InKeyOrder(*spec, *comms)
	le := forecast.Simulation{Graph: cg, Partition: cpart, Tau: 1, Sigma: *sigma, Sources: 1, Seed: *seed, Trials: *trials}
	prev, turns := false, 0
	for i := range *steps {
		m := *lo * math.Pow(*hi / *lo, float64(i)/float64(*steps-1))
		f, err := forecast.AtMass(ctx, le, forecast.GivenMass(m, ""))
		if err != nil {
			log.Fatal(err)
		}
		ans := !f.AtChance
		if i > 0 && ans != prev {
			turns++
		}
		prev = ans
		fmt.Printf("mass %.4f: locate's forecast %.3f of %d (guess %.4f) → answer %v\n", m, f.CommunityAccuracy, f.Trials, f.Guess(), ans)
	}
	fmt.Printf("turns: %d (1: a step)\n", turns)
}
