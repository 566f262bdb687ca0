package textreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/job"
)

// TestRunsVerdictColumn: the runs table shows a localisation's verdict in
// its VERDICT column (noise or answer) and a release, which has none, a
// blank there.
func TestRunsVerdictColumn(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	noise, answer := true, false
	rows := []job.RunRow{
		{RunID: "loc-noise", Command: "locate", Status: "succeeded", Scope: "s", Epoch: "e2", StartedAt: t0.Add(2 * time.Minute),
			TopCommunity: "3", TopProbability: 0.31, NoiseDominated: &noise, NoiseReason: "noise — not a finding", Chance: 0.25},
		{RunID: "loc-answer", Command: "locate", Status: "succeeded", Scope: "s", Epoch: "e1", StartedAt: t0.Add(time.Minute),
			TopCommunity: "1", TopProbability: 0.9, NoiseDominated: &answer, Chance: 0.25},
		{RunID: "rel", Command: "release", Status: "succeeded", Scope: "s", Epoch: "e1", StartedAt: t0, Sigma: 1, Rho: 0.1},
	}
	var tab bytes.Buffer
	if err := Runs(&tab, rows); err != nil {
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
	if !strings.HasSuffix(lines[3], "rel") || !strings.Contains(lines[3], "0.1") {
		t.Errorf("release row without its ρ or run id:\n%s", tab.String())
	}
}

// TestRunsPublishedColumn: a private answer's published community is in
// the PUBLISHED column, not TOP COMMUNITY (whose P it has not).
func TestRunsPublishedColumn(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var tab bytes.Buffer
	if err := Runs(&tab, []job.RunRow{{RunID: "ans", Command: "answer", Status: "succeeded", Scope: "s", Epoch: "e1", StartedAt: t0,
		Rho: 0.5, PublishedCommunity: "north-wing"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tab.String()), "\n")
	pub, top := strings.Index(lines[0], "PUBLISHED"), strings.Index(lines[0], "TOP COMMUNITY")
	if pub < 0 || len(lines) != 2 || !strings.HasPrefix(lines[1][pub:], "north-wing") || strings.HasPrefix(lines[1][top:], "north-wing") {
		t.Errorf("published community not in its column:\n%s", tab.String())
	}
}
