package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// curve is a mass curve on 0.1 … 1000 units in half decades (the shape of
// forecast.MassGrid) whose rate grows with the mass.
func curve() []forecast.MassPoint {
	var c []forecast.MassPoint
	for i, m := range []float64{0.1, 0.316, 1, 3.16, 10, 31.6, 100, 316, 1000} {
		c = append(c, forecast.MassPoint{Mass: m, CommunityAccuracy: 0.1 * float64(i+1)})
	}
	return c
}

// TestForecastsTable: one row per forecast under the header, a smoothed
// release labelled with its τ′, budget buys shown as ledger / exact, the
// at-chance rows marked (pointing at the mass curve when its own interval
// clears the guess), and one mass-curve line per forecast with a curve,
// after the table.
func TestForecastsTable(t *testing.T) {
	fs := []forecast.Forecast{
		{Mode: forecast.ModePerNode, Mechanism: "discrete", Epsilon: 1, CommunityAccuracy: 0.3, Low: 0.2, High: 0.4, Chance: 0.25, PriorRate: 0.3, AtChance: true},
		{Mode: forecast.ModePerNode, Mechanism: "discrete", Epsilon: 2, Smooth: 0.5, CommunityAccuracy: 0.5, Low: 0.45, High: 0.6, Chance: 0.25, PriorRate: 0.3,
			AtChance: true, MassCurve: curve(), ResolvableMass: 31.6},
		{Mode: forecast.ModeAnswer, Mechanism: "community-envelope", Epsilon: 1, CommunityAccuracy: 0.9, Low: 0.8, High: 0.95, Chance: 0.25, PriorRate: 0.3,
			Ceiling: 0.97, BudgetBuys: &privacy.BudgetBuys{Ledger: 3, Optimal: 7}},
	}
	var b bytes.Buffer
	if err := Forecasts(&b, fs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want header, 3 rows and 1 mass curve:\n%s", len(lines), b.String())
	}
	if !strings.HasPrefix(lines[0], "MODE") || !strings.Contains(lines[0], "BUDGET BUYS") {
		t.Errorf("header %q", lines[0])
	}
	for i, want := range []struct{ prefix, has, hasNot string }{
		{"per-node ", "← at chance: noise", "see by source mass"},
		{"per-node τ′=0.5", "(see by source mass)", "/"},
		{"private-answer", "3 / 7", "at chance"},
	} {
		row := lines[1+i]
		if !strings.HasPrefix(row, want.prefix) || !strings.Contains(row, want.has) || strings.Contains(row, want.hasNot) {
			t.Errorf("row %d %q: want prefix %q, %q and not %q", i, row, want.prefix, want.has, want.hasNot)
		}
	}
	if !strings.Contains(lines[3], "0.970") || !strings.Contains(lines[1], " - ") {
		t.Errorf("ceiling shown as %q / missing as %q", lines[3], lines[1])
	}
	if want := "per-node at ε = 2, right community by source mass"; !strings.HasPrefix(lines[4], want) {
		t.Errorf("mass curve line %q, want prefix %q", lines[4], want)
	}
}

// TestMassCurve: every decade and the largest mass, the half decades
// left out, what the curve resolves in words (the rate halfway from the
// guess 0.2 to always: 0.6, reached from 31.6 units, 31.6–100 within the
// ±0.05 intervals) and what beats a guess (the verdict's threshold).
func TestMassCurve(t *testing.T) {
	c := curve()
	for i := range c {
		c[i].Low, c[i].High = c[i].CommunityAccuracy-0.05, c[i].CommunityAccuracy+0.05
	}
	f := forecast.Forecast{Chance: 0.2, PriorRate: 0.2}
	f.SetMassCurve(c, 3.16)
	got := MassCurve(&f)
	for _, want := range []string{"0.1: 0.10 · 1: 0.30 · 10: 0.50 · 100: 0.70 · 1000: 0.90",
		"resolves sources of 31.6 units or more: right at least 0.60 of the time (halfway from a guess, 0.200, to always; 31.6–100 units within the 95% intervals)",
		"beats a guess from 3.16 units"} {
		if !strings.Contains(got, want) {
			t.Errorf("MassCurve = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "3.16:") {
		t.Errorf("MassCurve = %q shows a half decade", got)
	}
	f.SetMassCurve(c[:5], 0) // up to 10: the largest is shown
	if got := MassCurve(&f); !strings.Contains(got, "10: 0.50 — resolves no source up to 10 units") || !strings.Contains(got, "beats no guess up to 10 units") {
		t.Errorf("MassCurve without a resolvable mass = %q", got)
	}
}

// TestAtChance: one line, with the guess (the larger of chance and the
// largest community's share), when the forecast is at chance; nothing
// otherwise.
func TestAtChance(t *testing.T) {
	f := forecast.Forecast{CommunityAccuracy: 0.3, Low: 0.2, High: 0.4, Chance: 0.25, PriorRate: 0.35}
	var b bytes.Buffer
	AtChance(&b, f)
	if b.Len() != 0 {
		t.Errorf("not at chance, printed %q", b.String())
	}
	f.AtChance = true
	AtChance(&b, f)
	if got := b.String(); !strings.HasPrefix(got, "AT CHANCE") || !strings.Contains(got, "(0.3500: chance 0.2500") || strings.Count(got, "\n") != 1 {
		t.Errorf("at chance, printed %q", got)
	}
}

// TestForecastRows: the per-node forecast names its sources (unit, or the
// stated mass), the curve by mass appears only with one, the verdict says
// at chance, or how to state a mass when it judged without one (by the
// reader's name of the parameter), and the private answer names how it is
// asked for.
func TestForecastRows(t *testing.T) {
	var none []string
	ForecastRows(func(k string, _ any) { none = append(none, k) }, nil, flag)
	if len(none) != 0 {
		t.Errorf("rows without forecasts: %v", none)
	}
	for _, c := range []struct {
		perNode forecast.Forecast
		verdict *job.ReleaseVerdict
		want    map[string]string
	}{
		{forecast.Forecast{}, nil,
			map[string]string{"forecast": "right community with 1-unit sources", "private answer": "at the same ε, <private answer> (community-envelope)"}},
		{forecast.Forecast{MassCurve: curve()}, &job.ReleaseVerdict{Reason: "resolves 10 units"},
			map[string]string{"by source mass": "right community by source mass", "verdict": "resolves 10 units (<source mass> M judges a source of M units)"}},
		{forecast.Forecast{SourceMass: 5}, &job.ReleaseVerdict{SourceMass: 5, AtChance: true, Reason: "noise"},
			map[string]string{"forecast": "right community with a source of 5", "verdict": "AT CHANCE: this release would answer noise — noise"}},
	} {
		got := map[string]string{}
		ForecastRows(func(k string, v any) { got[k] = v.(string) }, &job.Forecasts{PerNode: &c.perNode, Answer: &forecast.Forecast{Mechanism: "community-envelope"}, Verdict: c.verdict}, flag)
		for k, want := range c.want {
			if !strings.HasPrefix(got[k], want) {
				t.Errorf("row %q = %q, want prefix %q", k, got[k], want)
			}
		}
		if _, ok := got["by source mass"]; ok != (len(c.perNode.MassCurve) > 0) {
			t.Errorf("by source mass row %v with a curve of %d points", ok, len(c.perNode.MassCurve))
		}
		if _, ok := got["verdict"]; ok != (c.verdict != nil) {
			t.Errorf("verdict row %v with verdict %v", ok, c.verdict)
		}
	}
}
