// Command missing measures what locate answers on local releases with
// missing sensors, to set beside plan --local --missing's forecast: trials
// releases of a unit source at a uniformly random node, the readings
// exp(−τL)·e_s plus N(0, σ²) noise, a fraction of the sensors (drawn
// afresh each release, independent of the source) left out as the
// release's missing nodes, each located by graphcloak.Locate; it prints
// the rate at which the top community is the source's, with its 95%
// Wilson interval and the CPU seconds of one locate. run.sh drives it
// beside plan; lfr.sh runs it on an LFR graph of 10⁵ nodes (issue 79).
//
//	go run ./bench/missing -graph gt:power -communities C.csv -tau 1 -sigma 0.0767 -missing 0.1,0.5 -trials 600
//	go run ./bench/missing -graph gt:power -write-communities C.csv   # Leiden (seed 1), for plan --communities file:C.csv
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	graphcloak "github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
)

// readCommunities reads node,community (a header line is skipped when its
// first field is no node).
func readCommunities(g *laplacian.Graph, path string) []int {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		log.Fatal(err)
	}
	part := make([]int, g.N())
	for i := range part {
		part[i] = -1
	}
	ids := map[string]int{}
	for _, r := range recs {
		i, ok := g.IndexOf(r[0])
		if !ok {
			continue
		}
		id, seen := ids[r[1]]
		if !seen {
			id = len(ids)
			ids[r[1]] = id
		}
		part[i] = id
	}
	for i, c := range part {
		if c < 0 {
			log.Fatalf("node %s has no community in %s", g.Key(i), path)
		}
	}
	return part
}

type result struct {
	Graph     string  `json:"graph"`
	Nodes     int     `json:"nodes"`
	Tau       float64 `json:"tau"`
	Sigma     float64 `json:"sigma"`
	Missing   float64 `json:"missingFraction"`
	Trials    int     `json:"trials"`
	Right     int     `json:"right"`
	Rate      float64 `json:"rate"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Seconds   float64 `json:"seconds"`
	CPUPerRun float64 `json:"cpuSecondsPerLocate"` // the process's user+system CPU (the machine may be shared)
	CPUTotal  float64 `json:"cpuSecondsTotal,omitempty"`
	// -shared: the same releases ranked on the estimated norms alone, and
	// the CPU seconds a release the exact norms added (sharedRun).
	RightEstimated *int    `json:"rightEstimatedNorms,omitempty"`
	ExactCPU       float64 `json:"exactNormsCPUSecondsPerRelease,omitempty"`
}

func main() {
	spec := flag.String("graph", "gt:power", "graph: gt:NAME, file:PATH or a generator spec")
	comms := flag.String("communities", "", "communities CSV (node,community), as plan --communities file:PATH reads it")
	write := flag.String("write-communities", "", "write Leiden's communities (seed 1) to this CSV and exit")
	tau := flag.Float64("tau", 1, "τ")
	sigma := flag.Float64("sigma", 0, "σ of the releases (plan's, at its ε)")
	missing := flag.String("missing", "0.1,0.5", "fractions of sensors missing, comma-separated")
	trials := flag.Int("trials", 600, "releases located per fraction")
	seed := flag.Uint64("seed", 71, "seed of the sources, missing sensors and noise")
	workers := flag.Int("workers", 2, "releases located at once")
	shared := flag.Bool("shared", false, "one set of missing sensors per fraction and one model for every release (sharedRun): Locate's ranking at one action per release")
	plan := flag.Bool("forecast", false, "also print plan's forecast at σ (forecast.Simulate, plan's per-node forecasting step: unit sources, the same trials) for each fraction")
	flag.Parse()
	g := benchgraph.Load(*spec)
	n := g.N()
	if *write != "" {
		part, err := community.Leiden(g, community.LeidenOptions{Resolution: 1, Seed: 1})
		if err != nil {
			log.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("node,community\n")
		for i, c := range part {
			fmt.Fprintf(&b, "%s,%d\n", g.Key(i), c)
		}
		if err := os.WriteFile(*write, []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *comms == "" || !(*sigma > 0) {
		log.Fatal("give -communities and -sigma")
	}
	part := readCommunities(g, *comms)
	act, err := expm.NewAction(g, *tau, expm.Options{Method: expm.Sparse})
	if err != nil {
		log.Fatal(err)
	}
	for _, fs := range strings.Split(*missing, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(fs), 64)
		if err != nil || !(q >= 0 && q < 1) {
			log.Fatalf("bad fraction %q", fs)
		}
		k := forecast.MissingCount(n, q)
		if *plan {
			forecastRun(g, part, *spec, *tau, *sigma, q, *trials, *seed)
		}
		if *shared {
			start, cpu0 := time.Now(), cpuSeconds()
			r, rEst, locCPU, exactCPU := sharedRun(g, act, part, *tau, *sigma, k, *trials, *seed)
			lo, hi := forecast.Wilson(float64(r), float64(*trials), forecast.Z95)
			out, _ := json.Marshal(result{Graph: *spec, Nodes: n, Tau: *tau, Sigma: *sigma, Missing: q, Trials: *trials, Right: r,
				Rate: float64(r) / float64(*trials), Low: lo, High: hi, Seconds: math.Round(time.Since(start).Seconds()*10) / 10,
				CPUPerRun: math.Round(locCPU*10) / 10, CPUTotal: math.Round((cpuSeconds()-cpu0)*10) / 10,
				RightEstimated: &rEst, ExactCPU: math.Round(exactCPU/float64(*trials)*100) / 100})
			fmt.Println(string(out))
			continue
		}
		var right atomic.Int64
		var next atomic.Int64
		start, cpu0 := time.Now(), cpuSeconds()
		var wg sync.WaitGroup
		for range *workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f0, y := make([]float64, n), make([]float64, n)
				for {
					t := int(next.Add(1) - 1)
					if t >= *trials {
						return
					}
					rng := rand.New(rand.NewPCG(*seed, uint64(t)))
					src := rng.IntN(n)
					gone := map[int]bool{}
					for _, i := range rng.Perm(n)[:k] {
						gone[i] = true
					}
					clear(f0)
					f0[src] = 1
					act.Apply(y, f0, 1)
					rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: *sigma, Tau: *tau}}
					for i := range n {
						if gone[i] {
							rel.Meta.Missing = append(rel.Meta.Missing, g.Key(i))
							continue
						}
						rel.Keys = append(rel.Keys, g.Key(i))
						rel.Values = append(rel.Values, y[i]+*sigma*rng.NormFloat64())
					}
					rel.Meta.N = len(rel.Keys)
					res, err := graphcloak.Locate(context.Background(), graphcloak.LocateRequest{Graph: g, Released: rel, Tau: *tau, Partition: part, Seed: 1})
					if err != nil {
						log.Fatalf("trial %d: %v", t, err)
					}
					if !res.Report.NoSource && res.Report.Communities[0].ID == part[src] {
						right.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		r := int(right.Load())
		lo, hi := forecast.Wilson(float64(r), float64(*trials), forecast.Z95)
		el := time.Since(start).Seconds()
		out, _ := json.Marshal(result{Graph: *spec, Nodes: n, Tau: *tau, Sigma: *sigma, Missing: q, Trials: *trials, Right: r,
			Rate: float64(r) / float64(*trials), Low: lo, High: hi, Seconds: math.Round(el*10) / 10,
			CPUPerRun: math.Round((cpuSeconds()-cpu0)/float64(*trials)*10) / 10})
		fmt.Println(string(out))
	}
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
