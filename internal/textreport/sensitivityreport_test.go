package textreport

import (
	"bytes"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/experiment"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// dashes names a parameter as the command's flag does ("--p").
func dashes(p errkind.Param) string { return "--" + string(p) }

// TestSensitivityReport: a whole Δ2 prints as Sensitivity does; a shard's
// as SensitivityShard with the merge of all its N parts as the next step.
func TestSensitivityReport(t *testing.T) {
	whole := sensitivity.Report{Delta2: 0.5, Method: "dense-eigen", Edge: []any{1, 2}, Certified: true, Exact: true}
	shard := sensitivity.Report{Delta2: 0.5, Method: "columns", Edge: []any{1, 2},
		Shard: &sensitivity.ShardReport{Index: 1, Count: 4, Scheme: "columns", Lower: 0.25, Complete: true, Save: "p1.json"}}
	var got, want bytes.Buffer
	if err := SensitivityReport(&got, whole, dashes); err != nil {
		t.Fatal(err)
	}
	_ = Sensitivity(&want, whole)
	if got.String() != want.String() {
		t.Errorf("whole:\n%s\nwant Sensitivity's\n%s", got.String(), want.String())
	}
	got.Reset()
	if err := SensitivityReport(&got, shard, dashes); err != nil {
		t.Fatal(err)
	}
	if next := rows(t, got.String())["next"]; next != "graphcloak sensitivity merge <all 4 partial certificates> --save CERT" {
		t.Errorf("shard's next step %q:\n%s", next, got.String())
	}
}

// TestAnswerExperiment: a line naming the graph, trials and seed, then
// the forecasts' table as Forecasts prints it.
func TestAnswerExperiment(t *testing.T) {
	fs := []forecast.Forecast{{Mode: "private-answer", Epsilon: 2, Delta: 0.1, Trials: 3}}
	var got, table bytes.Buffer
	if err := AnswerExperiment(&got, &experiment.AnswerReport{Forecasts: fs, Graph: "karate"}, 3, 7); err != nil {
		t.Fatal(err)
	}
	if err := Forecasts(&table, fs); err != nil {
		t.Fatal(err)
	}
	if want := "experiment graph karate, private answer, 3 trials per row (seed 7)\n" + table.String(); got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
}
