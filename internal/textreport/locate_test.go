package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
)

// locateReport is a two-community ranking.
func locateReport() *community.Report {
	return &community.Report{Communities: []community.Ranked{{ID: 1, Name: "east", Rank: 1, Share: 0.8, Size: 10}, {ID: 2, Name: "west", Rank: 2, Share: 0.2, Size: 12}}}
}

// TestLocateVerdictOrWarning: a localisation whose answer is noise says so
// with a warning before its ranking, and states no verdict; one that
// answers states its verdict; both show the ranking and what was written.
func TestLocateVerdictOrWarning(t *testing.T) {
	for _, noise := range []bool{true, false} {
		s := &job.LocateSummary{Graph: "karate", NodeCount: 34, RelationshipCount: 78, Estimator: "posterior", Status: "ok", Sigma: 0.5, Tau: 1,
			Report: locateReport(), NoiseDominated: noise, NoiseReason: "noise: not a finding", RunID: "run-1", NodePropertiesWritten: 136,
			Verdict: &forecast.Verdict{Noise: noise, Reason: "answer: right 0.9 of the time"}}
		var b bytes.Buffer
		if err := Locate(&b, s); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		warned, stated := strings.Contains(out, "WARNING: noise: not a finding"), strings.Contains(out, "VERDICT: answer")
		if warned != noise || stated == noise {
			t.Errorf("noise %v: warning %v, verdict %v:\n%s", noise, warned, stated, out)
		}
		if strings.Index(out, "WARNING")+strings.Index(out, "VERDICT")+1 > strings.Index(out, "RANK") {
			t.Errorf("noise %v: the verdict must come before the ranking:\n%s", noise, out)
		}
		if !strings.Contains(out, "east") || !strings.Contains(out, "run run-1: 136 properties written") {
			t.Errorf("noise %v: ranking or written properties missing:\n%s", noise, out)
		}
	}
}

// TestLocatePlan: a dry run prints its plan, says nothing was written,
// and neither ranks nor claims a run.
func TestLocatePlan(t *testing.T) {
	s := &job.LocateSummary{DryRun: true, Graph: "neo4j", Estimator: "posterior", Sigma: 0.5, Tau: 1, ReleaseRun: "run-0",
		Communities: "leiden", CommunityCount: 4, WriteProperties: &job.LocateProperties{Mass: "m", Community: "c", Probability: "p", Rank: "r"}}
	var b bytes.Buffer
	if err := Locate(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"dry run: nothing located or written", "release run run-0", "communities leiden: 4", "would write m (mass), c (community), p (probability), r (rank)"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "RANK") || strings.Contains(out, "properties written") {
		t.Errorf("plan ranks or claims a run:\n%s", out)
	}
}

// TestLocateForecastAtChance: the forecast states the simulated source
// mass, and a forecast at chance says that the answer is a guess.
func TestLocateForecastAtChance(t *testing.T) {
	for _, c := range []struct {
		f    forecast.Forecast
		want string
	}{
		{forecast.Forecast{Trials: 100, SourceMass: 0}, "100 simulated unit sources"},
		{forecast.Forecast{Trials: 50, SourceMass: 12, AtChance: true}, "50 simulated sources of 12 units"},
	} {
		var b bytes.Buffer
		locateForecast(&b, &c.f)
		out := b.String()
		if !strings.Contains(out, c.want) {
			t.Errorf("forecast lacks %q:\n%s", c.want, out)
		}
		if guess := strings.Contains(out, "cannot be told from a guess"); guess != c.f.AtChance {
			t.Errorf("at chance %v, says so %v:\n%s", c.f.AtChance, guess, out)
		}
	}
	var b bytes.Buffer
	locateForecast(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no forecast printed %q", b.String())
	}
}
