package job_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"

	. "github.com/graphcloak/graphcloak/job"
)

var locateProps = LocateProperties{Mass: "mass", Community: "comm", Probability: "prob", Rank: "rank"}

// locateFixture is the fixture with epoch testEpoch released (run r1)
// and its steps forgotten: a localisation of that release starts here.
func locateFixture(t *testing.T) *fixture {
	f := newFixture(t)
	if _, err := f.release("r1"); err != nil {
		t.Fatal(err)
	}
	f.mem.Restart()
	return f
}

func (f *fixture) locateSpec(runID string) LocateSpec {
	return LocateSpec{RunID: runID, Graph: "neo4j", Communities: "leiden", Neo4j: true, Database: "neo4j",
		Projection: connector.Projection{NodeKeyProperty: "roomId"}, Properties: locateProps, WriteProperty: "v",
		Release: f.run("r1"), ReleaseDigest: f.run("r1").ValuesDigest, Tau: 1, Estimator: "posterior", Sources: 1, Seed: 1,
		Resolution: 1, Lease: lease}
}

// locateEnv reads graph and, as Neo4j would, the released property from
// the nodes of the jobtest.Memory.
func (f *fixture) locateEnv(graph *laplacian.Graph) Env {
	return Env{Backend: f.mem, Now: func() time.Time { return f.now },
		LoadReleased: func(_ context.Context, prop string) (*Input, error) {
			in := &Input{Graph: graph, Readings: make([]float64, graph.N())}
			for i := range in.Readings {
				in.Readings[i], _ = f.mem.Node(graph.Key(i))[prop].(float64)
			}
			return in, nil
		}}
}

// locate plans and executes one localisation of release r1.
func (f *fixture) locate(spec LocateSpec, graph *laplacian.Graph) (*LocateSummary, error) {
	p, err := PlanLocate(context.Background(), spec, f.locateEnv(graph))
	if err != nil {
		return nil, err
	}
	return ExecuteLocate(context.Background(), p)
}

// A localisation of a release reads its σ, τ and property from the run
// record and writes its results to every node, succeeded last.
func TestLocatePublishes(t *testing.T) {
	f := locateFixture(t)
	sum, err := f.locate(f.locateSpec("l1"), f.graph)
	if err != nil {
		t.Fatal(err)
	}
	rec := f.run("l1")
	if rec == nil || rec.Status != connector.StatusSucceeded || rec.Scope != testScope || rec.Epoch != testEpoch ||
		rec.Parameters["releaseRun"] != "r1" || rec.Parameters["releasedProperty"] != "v" {
		t.Fatalf("run record %+v", rec)
	}
	for i := 0; i < f.graph.N(); i++ {
		if n := f.mem.Node(f.graph.Key(i)); n["rank"] == nil || n["mass"] == nil {
			t.Fatalf("node %s: %v", f.graph.Key(i), n)
		}
	}
	if sum.RunID != "l1" || sum.Sigma != f.run("r1").Sigma || sum.NodePropertiesWritten != 4*f.graph.N() {
		t.Errorf("summary %+v", sum)
	}
}

// What a localisation reads is checked before its run starts: an output
// that is the node key or holds a release's values, another graph than
// the release's, values another run wrote over, a σ or τ that is not the
// release's — each refused (exit 3) with no run record and nothing
// written.
func TestLocateRefusedBeforeClaim(t *testing.T) {
	other, err := laplacian.Grid(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		edit  func(*fixture, *LocateSpec)
		graph *laplacian.Graph
		want  string
	}{
		"rank is the node key":         {func(_ *fixture, s *LocateSpec) { s.Properties.Rank = "roomId" }, nil, "roomId"},
		"mass is the release's values": {func(_ *fixture, s *LocateSpec) { s.Properties.Mass = "v" }, nil, "mass property"},
		"another graph":                {nil, other, "not the one this release was made on"},
		"values overwritten": {func(f *fixture, _ *LocateSpec) {
			f.mem.WriteNodes(context.Background(), []connector.NodeProps{{Key: f.graph.Key(0), Props: map[string]any{"v": 0.5}}}, nil) //nolint:errcheck
		}, nil, "digest differs"},
		"mass owned by the communities": {func(f *fixture, _ *LocateSpec) { f.mem.Own("mass", connector.KindCommunity) }, nil, `"mass"`},
		"another σ":                     {func(_ *fixture, s *LocateSpec) { s.Sigma = 123 }, nil, "disagrees with the release's σ"},
		"another τ":                     {func(_ *fixture, s *LocateSpec) { s.Tau, s.TauGiven = 2, true }, nil, "disagrees with the release's τ"},
	} {
		t.Run(name, func(t *testing.T) {
			f := locateFixture(t)
			spec := f.locateSpec("l1")
			if c.edit != nil {
				c.edit(f, &spec)
			}
			g := c.graph
			if g == nil {
				g = f.graph
			}
			before := len(f.mem.Runs())
			_, err := f.locate(spec, g)
			if errkind.Of(err) != errkind.BadInput || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v (kind %v); want bad input naming %q", err, errkind.Of(err), c.want)
			}
			if len(f.mem.Runs()) != before || f.mem.Node(f.graph.Key(1))["rank"] != nil {
				t.Fatalf("refused, yet a run was started or a node written: %+v", f.mem.Runs())
			}
		})
	}
}

// A localisation stopped at any step is never recorded succeeded unless
// every node holds its results, and a failed step is recorded on its run.
func TestLocateCrashAtEveryStep(t *testing.T) {
	clean := locateFixture(t)
	if _, err := clean.locate(clean.locateSpec("l1"), clean.graph); err != nil {
		t.Fatal(err)
	}
	steps := clean.mem.Steps()
	for _, kill := range []bool{true, false} {
		for k := 1; k <= len(steps); k++ {
			t.Run(fmt.Sprintf("kill=%v/step %d (%s)", kill, k, steps[k-1]), func(t *testing.T) {
				f := locateFixture(t)
				f.mem.CrashAt, f.mem.Kill = k, kill
				_, err := f.locate(f.locateSpec("l1"), f.graph)
				written := 0
				for i := 0; i < f.graph.N(); i++ {
					if _, ok := f.mem.Node(f.graph.Key(i))["rank"]; ok {
						written++
					}
				}
				run := f.run("l1")
				switch {
				case err == nil:
					t.Fatalf("no error at a crash in step %q", steps[k-1])
				case run != nil && run.Status == connector.StatusSucceeded:
					t.Fatalf("%v, yet recorded succeeded (%d nodes written)", err, written)
				case run != nil && !kill && run.Status != connector.StatusFailed:
					t.Fatalf("%v not recorded: run %s", err, run.Status)
				}
			})
		}
	}
}

// TestJudgeRelease: the release's one verdict replaces the ranking's —
// a forecast at chance at the release's mass flags a confident ranking,
// one above chance clears a flat one with an answer's reason, no evidence
// of a source (p > 0.05) or no mass told from 0 is noise whatever the
// forecast, and when nothing was found the ranking's own verdict stays.
func TestJudgeRelease(t *testing.T) {
	ranking := func(flat bool, p float64) *graphcloak.LocateResult {
		r := &graphcloak.LocateResult{Report: &community.Report{Communities: []community.Ranked{{ID: 0, Share: 0.9, Size: 10}}},
			NoiseBasis: graphcloak.NoiseByPosterior, NoisePValue: p}
		if flat {
			r.NoiseDominated, r.NoiseReason = true, graphcloak.PosteriorNoiseReason(1.1)
		}
		return r
	}
	atChance := &forecast.Forecast{CommunityAccuracy: 0.05, Low: 0.03, High: 0.09, Chance: 0.025, PriorRate: 0.04, AtChance: true, Trials: 100}
	above := &forecast.Forecast{CommunityAccuracy: 0.10, Low: 0.05, High: 0.18, Chance: 0.025, Trials: 100}
	mass := forecast.MassEstimate{Mass: 90, SE: 10, Low: 70, High: 110}

	r := ranking(false, 0.005)
	JudgeRelease(r, atChance, mass)
	if !r.NoiseDominated || r.NoiseBasis != graphcloak.NoiseByForecast || !strings.Contains(r.NoiseReason, "at least 70 units") ||
		!strings.Contains(r.NoiseReason, "a guess (4.0%)") {
		t.Errorf("forecast at chance: %+v", r)
	}
	r = ranking(true, 0.005)
	if v := JudgeRelease(r, above, mass); r.NoiseDominated || r.NoiseReason != "" || v == nil || !strings.HasPrefix(v.Reason, "better than a guess, not an answer (wrong 90% of the time): evidence of a source (p = 0.005)") {
		t.Errorf("forecast above chance: %+v, verdict %+v", r, v)
	}
	r = ranking(false, 0.3)
	JudgeRelease(r, above, mass)
	if !r.NoiseDominated || !strings.Contains(r.NoiseReason, "p = 0.3 > 0.05") {
		t.Errorf("no evidence: %+v", r)
	}
	r = ranking(false, 0.01)
	JudgeRelease(r, nil, forecast.MassEstimate{Mass: 3, SE: 10})
	if !r.NoiseDominated || !strings.Contains(r.NoiseReason, "no source mass that can be told from 0") {
		t.Errorf("no mass: %+v", r)
	}
	r = ranking(false, 0.005)
	r.Report.NoSource = true
	if v := JudgeRelease(r, atChance, mass); v != nil || r.NoiseDominated || r.NoiseBasis != graphcloak.NoiseByPosterior {
		t.Errorf("no source: %+v", r)
	}
}

// serve's slots locate with one spec whose Store is the work store: a
// second localisation of a release carrying the same mass reads the
// verdict's forecast the first kept (Reused, the same forecast and
// verdict) instead of simulating it again; without a store (--cache-dir
// none) each simulates. The oracle is the first slot's own forecast.
func TestLocateAgainReusesTheVerdictForecast(t *testing.T) {
	f := locateFixture(t)
	spec := f.locateSpec("l1")
	spec.ForecastTrials = 20
	spec.Store = &WorkCache{Dir: t.TempDir()}
	first, err := f.locate(spec, f.graph)
	if err != nil {
		t.Fatal(err)
	}
	if first.Forecast == nil || first.Forecast.Reused {
		t.Fatalf("first slot: forecast %+v, want one simulated", first.Forecast)
	}
	spec.RunID = "l2"
	second, err := f.locate(spec, f.graph)
	if err != nil {
		t.Fatal(err)
	}
	if second.Forecast == nil || !second.Forecast.Reused {
		t.Fatalf("second slot: forecast %+v, want the first's reused", second.Forecast)
	}
	a, b := *first.Forecast, *second.Forecast
	b.Reused = false
	if fmt.Sprint(a) != fmt.Sprint(b) || first.NoiseDominated != second.NoiseDominated {
		t.Fatalf("the reused forecast or verdict differs:\n%+v\n%+v", a, b)
	}
	spec.RunID, spec.Store = "l3", nil
	none, err := f.locate(spec, f.graph)
	if err != nil {
		t.Fatal(err)
	}
	if none.Forecast == nil || none.Forecast.Reused {
		t.Fatalf("without a store: forecast %+v, want one simulated", none.Forecast)
	}
}
