package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestCollectCloseSaysMissing: collect --close with 4 of karate's 34
// sensors silent says so — the count, the fraction, that locate recovers
// from the 30 that reported — and names the plan that forecasts the
// release at that fraction, which runs and forecasts it (its forecast's
// missing fraction is the release's). Before, the epoch closed without a
// word.
func TestCollectCloseSaysMissing(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	r.open(t, "e1", order)
	var nodes []string
	for k := 1; k <= 30; k++ {
		nodes = append(nodes, fmt.Sprint(k))
	}
	code, sum, errb := r.collect(t, order, filepath.Join(r.dir, "journal"), r.reports(t, order, nodes...), "--close")
	if code != 0 || !sum.Closed {
		t.Fatalf("collect --close: exit %d %+v %s", code, sum, errb)
	}
	if want := 4.0 / 34; math.Abs(sum.MissingFraction-want) > 1e-12 {
		t.Errorf("missing fraction %v, want %v", sum.MissingFraction, want)
	}
	for _, want := range []string{"4 of 34 sensors missing", "recovers from the 30 that reported", "missing at random"} {
		if !strings.Contains(sum.MissingNote, want) {
			t.Errorf("note lacks %q: %s", want, sum.MissingNote)
		}
	}
	_, cmd, ok := strings.Cut(sum.MissingNote, "graphcloak plan ")
	if !ok {
		t.Fatalf("note names no plan: %s", sum.MissingNote)
	}
	cmd, _, _ = strings.Cut(cmd, "  (")
	args := append([]string{"plan"}, strings.Fields(strings.Replace(cmd, "GRAPH", "karate", 1))...)
	// The rig's sensors accept this ε; keygen's default policy would not.
	out := mustRun(t, append(args, "--trials", "20", "--cache-dir", "none", "-o", "json", "--sensor-policy", lowFloorPolicy(t))...)
	var rep struct {
		Plan struct {
			Forecasts []struct {
				Mode    string  `json:"mode"`
				Missing float64 `json:"missingFraction"`
			} `json:"forecasts"`
		} `json:"plan"`
	}
	// plan --local forecasts the per-node mode with the missing sensors,
	// and the central private answer beside it for comparison.
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Plan.Forecasts) == 0 || rep.Plan.Forecasts[0].Mode != "per-node" {
		t.Fatalf("%v: %v %s", args, err, out)
	}
	if got := rep.Plan.Forecasts[0].Missing; math.Abs(got-4.0/34) > 1e-4 {
		t.Errorf("the named plan forecasts %v of the sensors missing, want 4/34", got)
	}
	// The table says it too.
	var table strings.Builder
	if err := printCollectSummary(&table, &sum); err != nil || !strings.Contains(table.String(), "4 of 34 sensors missing") {
		t.Errorf("table: %v\n%s", err, table.String())
	}
}
