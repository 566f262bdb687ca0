package textreport

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/sensitivity"
)

// rows is a table's rows as label → the rest of the line.
func rows(t *testing.T, table string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		label, rest, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("row %q has no column", l)
		}
		m[label] = strings.TrimSpace(rest)
	}
	return m
}

// TestSensitivityTable: Δ2 says what kind of value it is; a proven upper
// bound shows the range the true Δ2 lies in and how loose it may be; the
// optional rows (graph, pair, τ, n and m) appear only when set; κ2 not
// computed says so.
func TestSensitivityTable(t *testing.T) {
	tau, n, m := 0.5, 10, 5
	for _, c := range []struct {
		r               sensitivity.Report
		kind, rangeRow  string
		graph, pair, nm bool
	}{
		{sensitivity.Report{Delta2: 2, Certified: true, Exact: true, Kappa2: 3, Graph: "karate", Tau: &tau, Edge: []any{"a", "b"}},
			"exact to slack, rounded up", "", true, true, false},
		{sensitivity.Report{Delta2: 2, Slack: 1, Certified: true, Kappa2: sensitivity.JSONFloat(math.NaN()), Tau: &tau, N: &n, M: &m, Edge: []any{}},
			"proven upper bound", "[1, 2] (the bound is at most 2× the true Δ2)", false, false, true},
		{sensitivity.Report{Delta2: 2, Slack: 3, Certified: true, Kappa2: 1, Edge: []any{}}, "proven upper bound", "[0, 2]", false, false, false},
		{sensitivity.Report{Delta2: 2, Kappa2: 1, Edge: []any{}}, "NOT CERTIFIED", "", false, false, false},
	} {
		var b bytes.Buffer
		if err := Sensitivity(&b, c.r); err != nil {
			t.Fatal(err)
		}
		got := rows(t, b.String())
		if !strings.HasSuffix(got["delta2"], "("+c.kind+")") {
			t.Errorf("%+v: delta2 row %q, want kind %q", c.r, got["delta2"], c.kind)
		}
		if got["proven range"] != c.rangeRow {
			t.Errorf("%+v: range %q, want %q", c.r, got["proven range"], c.rangeRow)
		}
		for label, want := range map[string]bool{"graph": c.graph, "maximising pair": c.pair, "n, m": c.nm, "tau": c.r.Tau != nil} {
			if _, ok := got[label]; ok != want {
				t.Errorf("%+v: row %q shown %v, want %v", c.r, label, ok, want)
			}
		}
		if wantK := map[bool]string{true: "not computed", false: "3"}[math.IsNaN(float64(c.r.Kappa2))]; c.r.Kappa2 != 1 && got["kappa2"] != wantK {
			t.Errorf("%+v: kappa2 %q, want %q", c.r, got["kappa2"], wantK)
		}
	}
}

// TestSensitivityShardTable: a shard's bounds, or that it holds no share
// of an undivided method; where it was saved; the caller's next step only
// when given.
func TestSensitivityShardTable(t *testing.T) {
	r := sensitivity.Report{Delta2: 0.5, Method: "columns", Edge: []any{1, 2},
		Shard: &sensitivity.ShardReport{Index: 1, Count: 4, Scheme: "columns", Lower: 0.25, Complete: true, Save: "p1.json"}}
	var b bytes.Buffer
	if err := SensitivityShard(&b, r, "merge them"); err != nil {
		t.Fatal(err)
	}
	got := rows(t, b.String())
	for label, want := range map[string]string{"shard": "1/4 (columns)", "shard's edges": "Δ2 term ≤ 0.5", "lower bound": "Δ2 ≥ 0.25 (whole graph)",
		"complete": "true", "maximising pair": "1 – 2", "next": "merge them"} {
		if got[label] != want {
			t.Errorf("row %q = %q, want %q", label, got[label], want)
		}
	}
	if !strings.HasPrefix(got["saved"], "p1.json") {
		t.Errorf("saved %q", got["saved"])
	}
	r.Shard.Empty, r.Edge = true, nil
	b.Reset()
	if err := SensitivityShard(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	got = rows(t, b.String())
	if _, ok := got["shard's edges"]; ok || !strings.HasPrefix(got["share"], "none") {
		t.Errorf("empty shard:\n%s", b.String())
	}
	if _, ok := got["next"]; ok {
		t.Errorf("a next row without a next step:\n%s", b.String())
	}
}

// TestSensitivityPlanTable: the method, its modelled time and memory in
// MiB, the slow modes' fallback when it applies, and the time budget's
// verdict only with a budget.
func TestSensitivityPlanTable(t *testing.T) {
	p := sensitivity.PlanReport{Graph: "pa", Nodes: 400, Tau: 1, Method: "columns", SecondsEstimate: 10, BytesEstimate: 3 << 20}
	var b bytes.Buffer
	if err := SensitivityPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	got := rows(t, b.String())
	if got["method"] != "columns" || got["memory estimate"] != "3 MiB" || got["nodes"] != "400" || !strings.HasPrefix(got["time estimate"], "10 s") {
		t.Errorf("plan table:\n%s", b.String())
	}
	if _, ok := got["time budget"]; ok {
		t.Errorf("a time budget row without a budget")
	}
	if _, ok := got["then"]; ok {
		t.Errorf("a slow-modes fallback row without slow modes")
	}
	p.TimeBudgetSeconds, p.SlowModesFirst = 1, true
	b.Reset()
	if err := SensitivityPlan(&b, p); err != nil {
		t.Fatal(err)
	}
	got = rows(t, b.String())
	if !strings.Contains(got["time budget"], "upper bound") || !strings.HasPrefix(got["then"], "panels") {
		t.Errorf("plan table with a budget and slow modes:\n%s", b.String())
	}
}

// TestSensitivityMerge: the merged certificate's table, then one line
// saying how many shards went into which file.
func TestSensitivityMerge(t *testing.T) {
	tau := 1.0
	r := sensitivity.Report{Delta2: 0.5, Certified: true, Exact: true, Tau: &tau, Kappa2: sensitivity.JSONFloat(math.NaN()), Shards: 4}
	var table, b bytes.Buffer
	if err := Sensitivity(&table, r); err != nil {
		t.Fatal(err)
	}
	if err := SensitivityMerge(&b, r, "cert.json"); err != nil {
		t.Fatal(err)
	}
	if want := table.String() + "merged 4 shards into cert.json\n"; b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
