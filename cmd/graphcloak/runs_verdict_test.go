package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/svgtest"
)

// A localisation's run record carries its verdict in its parameters
// (job.LocatePlan.publish: noiseDominated, noiseReason, noiseBasis):
// runs shows it, as a VERDICT column in the table and noiseDominated,
// noiseReason in JSON; a release, which has none, shows none.
func TestRunsShowVerdict(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	reason := "noise: the evidence test cannot tell these readings from pure noise (p = 0.4 > 0.05) — not a finding"
	recs := []*connector.RunRecord{
		{RunID: "loc-noise", Command: "locate", Status: connector.StatusSucceeded, Scope: "s", Epoch: "e2", StartedAt: t0.Add(2 * time.Minute),
			Parameters: map[string]any{"noiseDominated": true, "noiseBasis": "forecast", "noiseReason": reason},
			Extra:      map[string]any{"topCommunity": "3", "topProbability": 0.31, "communityCount": int64(4)}},
		{RunID: "loc-answer", Command: "locate", Status: connector.StatusSucceeded, Scope: "s", Epoch: "e1", StartedAt: t0.Add(time.Minute),
			Parameters: map[string]any{"noiseDominated": false, "noiseBasis": "forecast", "noiseReason": ""},
			Extra:      map[string]any{"topCommunity": "1", "topProbability": 0.9, "communityCount": int64(4)}},
		{RunID: "rel", Command: "release", Status: connector.StatusSucceeded, Scope: "s", Epoch: "e1", StartedAt: t0, Sigma: 1, Rho: 0.1},
	}
	rows := make([]runRow, len(recs))
	for i, r := range recs {
		rows[i] = runRowOf(r, t0.Add(time.Hour))
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got[0]["noiseDominated"] != true || got[0]["noiseReason"] != reason {
		t.Errorf("flagged localisation in JSON: %v, want noiseDominated true and its reason", got[0])
	}
	if v, ok := got[1]["noiseDominated"]; !ok || v != false {
		t.Errorf("answered localisation in JSON: %v, want noiseDominated false", got[1])
	}
	if _, ok := got[2]["noiseDominated"]; ok {
		t.Errorf("release in JSON: %v, want no verdict", got[2])
	}
	if got[0]["chance"] != 0.25 {
		t.Errorf("flagged localisation's chance: %v, want 1/4 (4 communities)", got[0]["chance"])
	}
	var tab bytes.Buffer
	if err := writeRunsTable(&tab, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tab.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("table:\n%s", tab.String())
	}
	col := strings.Index(lines[0], "VERDICT")
	if col < 0 {
		t.Fatalf("no VERDICT column:\n%s", tab.String())
	}
	cell := func(line string) string {
		f := strings.Fields(line[col:])
		if len(f) == 0 {
			return ""
		}
		return f[0]
	}
	for i, want := range []string{"noise", "answer"} {
		if c := cell(lines[i+1]); c != want {
			t.Errorf("row %d VERDICT %q, want %q:\n%s", i+1, c, want, tab.String())
		}
	}
	if c := cell(lines[3]); c == "noise" || c == "answer" {
		t.Errorf("release row VERDICT %q, want blank:\n%s", c, tab.String())
	}
}

// runs --plot draws the verdicts the run records hold: the flagged
// localisations crossed, chance from their communities.
func TestRunsPlotShowsVerdict(t *testing.T) {
	noise, answer := true, false
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rows := []runRow{
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
