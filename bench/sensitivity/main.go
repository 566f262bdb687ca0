// Command sensitivity times graphcloak's certified Δ2 on one graph and
// writes the graph for the naive scipy peer (scipy_peer.py): the edge list,
// the Laplacian weights and the Go result. Used by run.sh; never by tests.
//
//	go run ./bench/sensitivity -graph gt:as-22july06 -tau 0.5 -budget 120s -dir DIR
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

func main() {
	spec := flag.String("graph", "pa:n=100000,m=10", "graph spec, or gt:NAME for a fetched dataset")
	tau := flag.Float64("tau", 1, "diffusion time τ")
	budget := flag.Duration("budget", 0, "time budget (0 = to completion)")
	dir := flag.String("dir", "", "write edges.csv and go.json here for the scipy peer")
	trace := flag.Bool("trace", false, "print the anytime bound and the ETA to stderr every 10 s")
	flag.Parse()

	var g *laplacian.Graph
	var err error
	if name, ok := strings.CutPrefix(*spec, "gt:"); ok {
		var gt *datasets.GT
		if gt, err = datasets.Open("", name); err == nil {
			g, _, err = gt.Graph()
		}
	} else {
		g, _, err = laplacian.Generate(*spec)
	}
	if err != nil {
		log.Fatal(err)
	}
	var peak uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	var atFive *sensitivity.Interim
	var nextTrace time.Duration
	start := time.Now()
	s, err := sensitivity.Graph(g, *tau, 1, sensitivity.Options{TimeBudget: *budget, Status: func(st sensitivity.Interim) {
		if atFive == nil && st.Elapsed >= 5*time.Minute {
			atFive = &st
		}
		if *trace && st.Elapsed >= nextTrace {
			fmt.Fprintf(os.Stderr, "%6.1f s  Δ2 ≤ %.10g  edges certified %d of %d  ETA %.0f s\n", st.Elapsed.Seconds(), st.Delta2, st.EdgesCertified, st.Edges, st.ETA.Seconds())
			nextTrace = st.Elapsed + 10*time.Second
		}
	}})
	secs := time.Since(start).Seconds()
	close(stop)
	if err != nil {
		log.Fatal(err)
	}
	res := map[string]any{"Graph": *spec, "N": g.N(), "Edges": g.NumEdges(), "MaxDegree": g.MaxDegree(), "Tau": *tau,
		"Delta2": s.Delta2, "Exact": s.Exact, "Slack": s.Slack, "Method": s.Method, "Seconds": secs,
		"PeakHeapMiB": float64(peak) / (1 << 20), "Budget": budget.String()}
	if atFive != nil {
		res["Delta2At5min"] = atFive.Delta2
	}
	fmt.Printf("graphcloak: %s n=%d m=%d dmax=%g tau=%g: Δ2 ≤ %.10g (exact %v, relative slack %.2g, %s) in %.1f s, peak heap %.0f MiB\n",
		*spec, g.N(), g.NumEdges(), g.MaxDegree(), *tau, s.Delta2, s.Exact, s.Slack/s.Delta2, s.Method, secs, float64(peak)/(1<<20))
	if atFive != nil {
		fmt.Printf("anytime bound after 5 min: Δ2 ≤ %.10g (%.1f%% above the result)\n", atFive.Delta2, 100*(atFive.Delta2/s.Delta2-1))
	}
	if *dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(*dir, "edges.csv"))
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	g.ForEachEdge(func(i, j int, wt float64) { fmt.Fprintf(w, "%d,%d,%.17g\n", i, j, wt) })
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	f.Close()
	data, _ := json.Marshal(res)
	if err := os.WriteFile(filepath.Join(*dir, "go.json"), data, 0o644); err != nil {
		log.Fatal(err)
	}
}
