package job

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/connector"
)

// A localisation's run record carries its verdict in its parameters
// (LocatePlan.publish: noiseDominated, noiseReason, noiseBasis): its row
// shows it, as noiseDominated and noiseReason in JSON, with chance from
// its communities; a release, which has none, shows none.
func TestRunRowVerdict(t *testing.T) {
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
	rows := make([]RunRow, len(recs))
	for i, r := range recs {
		rows[i] = RunRowOf(r, t0.Add(time.Hour))
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
}

// TestRunRowLeaseExpired: a running record whose lease ran out before now
// shows as expired; one whose lease holds, and a finished one, as recorded.
func TestRunRowLeaseExpired(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		status string
		lease  time.Time
		want   string
	}{
		{connector.StatusRunning, t0.Add(time.Minute), "running (lease expired)"},
		{connector.StatusRunning, t0.Add(2 * time.Hour), connector.StatusRunning},
		{connector.StatusSucceeded, t0.Add(time.Minute), connector.StatusSucceeded},
	} {
		r := &connector.RunRecord{RunID: "r", Status: c.status, StartedAt: t0, LeaseExpiresAt: c.lease}
		if got := RunRowOf(r, t0.Add(time.Hour)).Status; got != c.want {
			t.Errorf("%s, lease to %v: status %q, want %q", c.status, c.lease, got, c.want)
		}
	}
}

// A private answer's published community goes from its run record
// (recordAnswer) to its row as publishedCommunity — not as topCommunity,
// a localisation's top-ranked one, which carries a probability an answer
// does not have; a localisation's row has no published community.
func TestRunRowPublishedCommunity(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec := &connector.RunRecord{RunID: "ans", Command: answerCommand, Status: connector.StatusSucceeded, Scope: "s", StartedAt: t0}
	recordAnswer(rec, &AnswerSummary{Answer: &answer.Result{Community: "officers", CommunityID: 1}})
	row := RunRowOf(rec, t0)
	if row.PublishedCommunity != "officers" || row.TopCommunity != "" {
		t.Errorf("answer row: published %q, top %q; want officers and none", row.PublishedCommunity, row.TopCommunity)
	}
	loc := &connector.RunRecord{RunID: "loc", Command: "locate", Parameters: map[string]any{"community": "x"},
		Extra: map[string]any{"topCommunity": "3", "topProbability": 0.5}}
	if row := RunRowOf(loc, t0); row.PublishedCommunity != "" || row.TopCommunity != "3" {
		t.Errorf("localisation row: published %q, top %q; want none and 3", row.PublishedCommunity, row.TopCommunity)
	}
}
