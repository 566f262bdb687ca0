package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// TestPassLinePricesWithTheFirstLinesRate: the answer audit's own line
// (passStarted, as its pass starts) prices the pass at the step rate the
// command's first line measured on the graph, so the two say one figure
// for one step. Before, each measured its own rate (0.3 s under the
// machine's load): on Enron "audit 23 min 50 s" then, 0.4 s later, "1 h
// 11 min". A rate far from any real one (1 µs a step) shows which was
// used; on another graph none is kept.
func TestPassLinePricesWithTheFirstLinesRate(t *testing.T) {
	gr, err := laplacian.Grid(30, 30)
	if err != nil {
		t.Fatal(err)
	}
	c, err := recovery.EstimatePass(gr, 1, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	g := &globalOptions{stderr: &buf}
	first := answer.WorkEstimate{NanosPerStep: 1000, Workers: 2, MeasureMillis: 300}
	g.stepRates.keep(gr, &first)
	g.passStarted(gr, c)
	want := answer.PassEstimate(gr, c, &expm.StepRate{Seconds: 1e-6, Workers: 2, Elapsed: 300 * time.Millisecond}, 0).String()
	if got := strings.TrimSpace(buf.String()); got != want {
		t.Errorf("the pass's line:\n%s\nwant the first line's rate:\n%s", got, want)
	}
	other, err := laplacian.Grid(31, 30)
	if err != nil {
		t.Fatal(err)
	}
	if r := g.stepRates.of(other); r != nil {
		t.Errorf("another graph priced at the kept rate %+v", *r)
	}
}
