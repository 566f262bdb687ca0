package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	graphcloak "github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"gonum.org/v1/gonum/mat"
)

// TestPlanLocalMissingForecastsLocate: plan --local --missing 0.5 forecasts
// the rate at which locate names the source's community when half the
// sensors, drawn at random, do not report: within a binomial margin (3.5
// standard errors of the difference of two rates) of locate itself, run
// on releases simulated here — readings from an eigendecomposition of L
// (not the Chebyshev action plan uses), the plan's σ, a fresh random half
// of the sensors left out of each release as Released.Meta.Missing. At
// this ε the rate with every sensor reporting is about 0.15 higher than
// with half missing, more than the margin: a forecast blind to --missing
// fails.
func TestPlanLocalMissingForecastsLocate(t *testing.T) {
	g, _ := laplacian.Karate()
	n := g.N()
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	comm := filepath.Join(t.TempDir(), "communities.csv")
	var b strings.Builder
	for i := range n {
		b.WriteString(g.Key(i) + "," + strconv.Itoa(part[i]) + "\n")
	}
	if err := os.WriteFile(comm, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	const q, tau = 0.5, 1.0
	out := mustRun(t, "plan", "--graph", "karate", "--local", "--missing", strconv.FormatFloat(q, 'g', -1, 64),
		"--tau", "1", "--epsilon", "16", "--trials", "400", "--communities", "file:"+comm, "--cache-dir", "none", "--modes", "per-node", "-o", "json",
		"--sensor-policy", lowFloorPolicy(t)) // sensors that accept ε = 16

	var rep struct {
		Plan struct {
			Forecasts []struct {
				CommunityAccuracy float64 `json:"communityAccuracy"`
				Trials            int     `json:"trials"`
				Sigma             float64 `json:"sigma"`
				Missing           float64 `json:"missingFraction"`
			} `json:"forecasts"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Plan.Forecasts) != 1 {
		t.Fatalf("plan: %v %s", err, out)
	}
	fc := rep.Plan.Forecasts[0]
	if fc.Missing != q {
		t.Errorf("forecast's missing fraction %v, want %v", fc.Missing, q)
	}

	// exp(−τL) by the eigendecomposition of L.
	var es mat.EigenSym
	if !es.Factorize(g.Laplacian().Dense(), true) {
		t.Fatal("eigendecomposition failed")
	}
	var Q mat.Dense
	es.VectorsTo(&Q)
	lam := es.Values(nil)
	heat := func(i, s int) float64 {
		t := 0.0
		for k, l := range lam {
			t += Q.At(i, k) * math.Exp(-tau*l) * Q.At(s, k)
		}
		return t
	}
	const trials = 400
	rng := rand.New(rand.NewPCG(2026, 71))
	right := 0
	missing := int(math.Round(q * float64(n)))
	for range trials {
		src := rng.IntN(n)
		gone := map[int]bool{}
		for _, i := range rng.Perm(n)[:missing] {
			gone[i] = true
		}
		rel := &privacy.Released{Meta: privacy.ReleaseMeta{Sigma: fc.Sigma, Tau: tau}}
		for i := range n {
			if gone[i] {
				rel.Meta.Missing = append(rel.Meta.Missing, g.Key(i))
				continue
			}
			rel.Keys = append(rel.Keys, g.Key(i))
			rel.Values = append(rel.Values, heat(i, src)+fc.Sigma*rng.NormFloat64())
		}
		rel.Meta.N = len(rel.Keys)
		res, err := graphcloak.Locate(context.Background(), graphcloak.LocateRequest{Graph: g, Released: rel, Tau: tau, Partition: part, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Report.NoSource && res.Report.Communities[0].ID == part[src] {
			right++
		}
	}
	located := float64(right) / trials
	pooled := (located*trials + fc.CommunityAccuracy*float64(fc.Trials)) / float64(trials+fc.Trials)
	margin := 3.5 * math.Sqrt(pooled*(1-pooled)*(1.0/trials+1/float64(fc.Trials)))
	t.Logf("plan --missing %v: %.3f (%d trials); locate on simulated releases: %.3f (%d); margin %.3f",
		q, fc.CommunityAccuracy, fc.Trials, located, trials, margin)
	// The test can tell: the forecast with every sensor reporting is
	// further than the margin from locate with half of them missing.
	all := mustRun(t, "plan", "--graph", "karate", "--local", "--tau", "1", "--epsilon", "16", "--trials", "400",
		"--communities", "file:"+comm, "--cache-dir", "none", "--modes", "per-node", "-o", "json", "--sensor-policy", lowFloorPolicy(t))
	var full struct {
		Plan struct {
			Forecasts []struct {
				CommunityAccuracy float64 `json:"communityAccuracy"`
			} `json:"forecasts"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(all), &full); err != nil || len(full.Plan.Forecasts) != 1 {
		t.Fatalf("plan: %v %s", err, all)
	}
	if d := math.Abs(full.Plan.Forecasts[0].CommunityAccuracy - located); d <= margin {
		t.Errorf("every sensor reporting forecasts %.3f, within the margin of half missing (%.3f): the test cannot tell",
			full.Plan.Forecasts[0].CommunityAccuracy, located)
	}
	if math.Abs(fc.CommunityAccuracy-located) > margin {
		t.Errorf("plan forecasts %.3f with %v of the sensors missing, locate reaches %.3f: more than the margin %.3f apart",
			fc.CommunityAccuracy, q, located, margin)
	}
}
