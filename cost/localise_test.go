package cost

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestLocalise: the localisation's line prices community detection
// (only without a partition), the source mass's MassNullDraws null draws
// (only when it forecasts and no mass is stated), the recovery's
// recoveryActions and the evidence test's DefaultEvidenceDraws (not on a
// dry run), each a column action of K·(2|E|+n) steps at the step rate it
// names; the forecast's trials are named apart, not in the sum.
func TestLocalise(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	stepRe := regexp.MustCompile(`^(.+) [0-9.]+ s$`) // a step under 10 s
	re := regexp.MustCompile(`^estimated .+ for the localisation \((.+); a null draw one column action of K = (\d+) at this machine's (\S+) ns a step\)(.*)$`)
	for _, c := range []struct {
		spec   Localisation
		steps  []string
		draws  float64
		trials bool
	}{
		{Localisation{Tau: 1, ForecastTrials: 100, Partitioned: false}, []string{"communities", "source mass", "recovery", "evidence test"}, forecast.MassNullDraws + recoveryActions + recovery.DefaultEvidenceDraws, true},
		{Localisation{Tau: 1, ForecastTrials: 100, SourceMass: 3, Partitioned: true}, []string{"recovery", "evidence test"}, recoveryActions + recovery.DefaultEvidenceDraws, true},
		// A located release's exact norms (recovery.ForRelease's cap of
		// blocks): priced where σ is below what a probed norm can reach,
		// none at a private release's noise; never on a dry run.
		{Localisation{Tau: 1, SourceMass: 3, Partitioned: true, ExactNormBlocks: 8, Sigma: 1e-3}, []string{"recovery", "exact norms", "evidence test"},
			recoveryActions + 8*exactNormsBlock + recovery.DefaultEvidenceDraws, false},
		{Localisation{Tau: 1, SourceMass: 3, Partitioned: true, ExactNormBlocks: 8, Sigma: 1}, []string{"recovery", "evidence test"},
			recoveryActions + recovery.DefaultEvidenceDraws, false},
		{Localisation{Tau: 1, DryRun: true, Partitioned: true, ExactNormBlocks: 8, Sigma: 1e-3}, nil, 0, false},
		{Localisation{Tau: 1, DryRun: true, Partitioned: true}, nil, 0, false},
		{Localisation{Tau: 1, DryRun: true, ForecastTrials: 100, Partitioned: false}, []string{"communities", "source mass"}, forecast.MassNullDraws, true},
	} {
		total, line := Localise(g, c.spec)
		if c.steps == nil {
			if total != 0 || line != "" {
				t.Errorf("%+v: nothing to price, said %q (%g s)", c.spec, line, total)
			}
			continue
		}
		m := re.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%+v: line %q", c.spec, line)
		}
		var steps []string
		for _, part := range strings.Split(m[1], ", ") {
			if sm := stepRe.FindStringSubmatch(part); sm != nil {
				steps = append(steps, sm[1])
			}
		}
		K, _ := strconv.Atoi(m[2])
		ns, _ := strconv.ParseFloat(m[3], 64)
		want := c.draws * float64(K) * float64(2*g.NumEdges()+g.N()) * ns * 1e-9
		if !c.spec.Partitioned {
			want += community.DetectionSeconds(g.NumEdges())
		}
		// The step rate is told to three digits: up to 0.5 % off.
		if !slices.Equal(steps, c.steps) || math.Abs(total-want) > 5e-3*want+1e-12 ||
			strings.Contains(m[4], "forecast's trials") != c.trials || K < 2 {
			t.Errorf("%+v: %g s, want %g; line %q", c.spec, total, want, line)
		}
	}
}

// TestLocateEstimatePricesTheRecovery: locate --estimate (cost.Locate)
// prices a localisation's source mass (when it forecasts and no mass is
// stated), recovery, its exact norms below σ's threshold and the evidence
// test, as the localisation's first line does (Localise); none on a dry
// run (Recovers false). On 33b7e36 it priced none of them.
func TestLocateEstimatePricesTheRecovery(t *testing.T) {
	g, _, err := laplacian.Generate("grid:rows=80,cols=80")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		work LocateWork
		want []string
	}{
		{LocateWork{Recovers: true, ExactNormBlocks: 8, Forecast: forecast.Simulation{Graph: g, Tau: 1, Sigma: 1e-3}}, []string{"recovery", "exact norms", "evidence test"}},
		{LocateWork{Recovers: true, ExactNormBlocks: 8, Forecast: forecast.Simulation{Graph: g, Tau: 1, Sigma: 2}}, []string{"recovery", "evidence test"}},
		{LocateWork{ExactNormBlocks: 8, Forecast: forecast.Simulation{Graph: g, Tau: 1, Sigma: 1e-3}}, nil},
		{LocateWork{Recovers: true, Forecast: forecast.Simulation{Graph: g, Tau: 1, Sigma: 2, Trials: 10}}, []string{"forecast trials", "source mass", "recovery", "evidence test"}},
		{LocateWork{Recovers: true, SourceMass: 3, Forecast: forecast.Simulation{Graph: g, Tau: 1, Sigma: 2, Trials: 10}}, []string{"forecast trials", "recovery", "evidence test"}},
	} {
		e := NewEstimate("locate", "grid", g, 1, time.Now())
		if err := Locate(e, c.work); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range e.Steps {
			if !(st.Seconds > 0) {
				t.Errorf("σ = %g: step %q priced at %g s", c.work.Forecast.Sigma, st.Step, st.Seconds)
			}
			got = append(got, st.Step)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("σ = %g, recovers %v: steps %q, want %q", c.work.Forecast.Sigma, c.work.Recovers, got, c.want)
		}
	}
}
