package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"time"

	graphcloak "github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// sharedRun is -shared: the missing sensors drawn once for the fraction
// (not afresh per release), so that one recovery model serves every
// release, as graphcloak.Locate builds it (the same options and probe
// seed, restricted to the same rows): its posterior and ranking are
// Locate's, at one action per release instead of a model, its norms and
// the evidence test's null draws each. The first release is also located
// by graphcloak.Locate, which must rank the same community first with the
// same share (else the program stops), and its CPU seconds are reported.
//
// rightEstimated counts the same releases ranked by the posterior on the
// estimated column norms alone (recovery.Posterior without ForRelease's
// exact norms: what plan's simulated trials run), and exactCPU is the CPU
// seconds the exact norms added over all releases.
func sharedRun(g *laplacian.Graph, act expm.Action, part []int, tau, sigma float64, k, trials int, seed uint64) (right, rightEstimated int, locateCPU, exactCPU float64) {
	n := g.N()
	rng := rand.New(rand.NewPCG(seed, 1<<40))
	gone := make([]bool, n)
	for _, i := range rng.Perm(n)[:k] {
		gone[i] = true
	}
	var rows []int
	for i := range n {
		if !gone[i] {
			rows = append(rows, i)
		}
	}
	model, err := recovery.NewGraphModel(g, tau, recovery.GraphOptions{})
	if err == nil && k > 0 {
		model, err = model.Rows(rows)
	}
	if err != nil {
		log.Fatal(err)
	}
	f0, full := make([]float64, n), make([]float64, n)
	for t := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(t)))
		src := rng.IntN(n)
		clear(f0)
		f0[src] = 1
		act.Apply(full, f0, 1)
		y := make([]float64, len(rows))
		for j, i := range rows {
			y[j] = full[i] + sigma*rng.NormFloat64()
		}
		prob := model.Problem(y, sigma)
		prob.Sources = 1
		plainStart := cpuSeconds()
		plain, err := recovery.Solve(recovery.Posterior{}, prob)
		if err != nil {
			log.Fatal(err)
		}
		cpu0 := cpuSeconds()
		e, err := recovery.Solve(recovery.ForRelease(recovery.Posterior{}), prob)
		if err != nil {
			log.Fatal(err)
		}
		exactCPU += cpuSeconds() - cpu0 - (cpu0 - plainStart)
		rep := community.RankCommunities(g, part, nil, e.Weights(), e.NoSource())
		if !rep.NoSource && rep.Communities[0].ID == part[src] {
			right++
		}
		est := community.RankCommunities(g, part, nil, plain.Weights(), plain.NoSource())
		if !est.NoSource && est.Communities[0].ID == part[src] {
			rightEstimated++
		}
		fmt.Fprintf(os.Stderr, "trial %d: source %d (community %d), top %d share %.3g; estimated norms: top %d\n", t, src, part[src], rep.Communities[0].ID, rep.Communities[0].Share, est.Communities[0].ID)
		if t == 0 {
			locateCPU = checkLocate(g, part, tau, sigma, rows, y, rep)
		}
	}
	return right, rightEstimated, locateCPU, exactCPU
}

// checkLocate locates the release of readings y at rows with
// graphcloak.Locate, stops the program unless it ranks as rep does, and
// returns its CPU seconds.
func checkLocate(g *laplacian.Graph, part []int, tau, sigma float64, rows []int, y []float64, rep *community.Report) float64 {
	rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: sigma, Tau: tau, N: len(rows)}}
	at := map[int]float64{}
	for j, i := range rows {
		at[i] = y[j]
	}
	for i := range g.N() {
		v, ok := at[i]
		if !ok {
			rel.Meta.Missing = append(rel.Meta.Missing, g.Key(i))
			continue
		}
		rel.Keys, rel.Values = append(rel.Keys, g.Key(i)), append(rel.Values, v)
	}
	cpu0, start := cpuSeconds(), time.Now()
	res, err := graphcloak.Locate(context.Background(), graphcloak.LocateRequest{Graph: g, Released: rel, Tau: tau, Partition: part, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	cpu := cpuSeconds() - cpu0
	got, want := res.Report.Communities[0], rep.Communities[0]
	if got.ID != want.ID || got.Share != want.Share {
		log.Fatalf("Locate ranks community %d (share %v) first, the shared model %d (%v)", got.ID, got.Share, want.ID, want.Share)
	}
	fmt.Fprintf(os.Stderr, "one graphcloak.Locate: %.1f CPU-s, %.1f s\n", cpu, time.Since(start).Seconds())
	return cpu
}

// forecastRun prints plan's forecast of the same releases: forecast.Simulate
// (plan's per-node forecasting step, what plan --modes per-node runs for
// unit sources) at σ, with the fraction q of the sensors missing, over
// trials sources of its own seed.
func forecastRun(g *laplacian.Graph, part []int, spec string, tau, sigma, q float64, trials int, seed uint64) {
	start, cpu0 := time.Now(), cpuSeconds()
	res, err := forecast.Simulate(context.Background(), forecast.Simulation{Graph: g, Partition: part, Tau: tau, Sigma: sigma,
		Missing: q, Trials: trials, Seed: seed})
	if err != nil {
		log.Fatal(err)
	}
	lo, hi := forecast.Wilson(res.CommunityAccuracy*float64(res.Trials), float64(res.Trials), forecast.Z95)
	out, _ := json.Marshal(map[string]any{"side": "plan (forecast.Simulate)", "graph": spec, "tau": tau, "sigma": res.Sigma,
		"missingFraction": q, "trials": res.Trials, "rate": res.CommunityAccuracy, "low": lo, "high": hi,
		"largestShare": res.LargestShare, "seconds": math.Round(time.Since(start).Seconds()*10) / 10,
		"cpuSeconds": math.Round((cpuSeconds()-cpu0)*10) / 10})
	fmt.Println(string(out))
}
