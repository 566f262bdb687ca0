package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/internal/svgtest"
	"github.com/graphcloak/graphcloak/job"
)

// runs --plot draws the verdicts the run records hold: the flagged
// localisations crossed, chance from their communities.
func TestRunsPlotShowsVerdict(t *testing.T) {
	noise, answer := true, false
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rows := []job.RunRow{
		{RunID: "b", Command: "locate", Epoch: "e2", StartedAt: t0.Add(time.Hour), TopCommunity: "1", TopProbability: 0.9, NoiseDominated: &answer, Chance: 0.25},
		{RunID: "a", Command: "locate", Epoch: "e1", StartedAt: t0, TopCommunity: "3", TopProbability: 0.3, NoiseDominated: &noise, Chance: 0.25},
	}
	svg := filepath.Join(t.TempDir(), "h.svg")
	if err := plotHistory(&runsOptions{plot: svg}, rows); err != nil {
		t.Fatal(err)
	}
	doc := svgtest.Read(t, svg)
	if !doc.HasText("not a finding") || !doc.HasText("chance") {
		t.Errorf("history picture without the noise mark or chance: %q", doc.Texts)
	}
}
