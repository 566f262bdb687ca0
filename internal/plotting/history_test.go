package plotting

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/internal/svgtest"
)

// Two days of hourly slots (serve's epochs are their start times): the
// time axis shows a few short tick labels, not 48 overlapping timestamps.
func TestHistoryTimeAxisReadable(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var pts []HistoryPoint
	for h := 0; h < 48; h++ {
		at := t0.Add(time.Duration(h) * time.Hour)
		pts = append(pts, HistoryPoint{At: at.Add(3 * time.Second), Label: at.Format("2006-01-02T15:04Z"), Community: "7", Probability: 0.6})
	}
	svg := filepath.Join(t.TempDir(), "h.svg")
	if err := TopCommunityHistory(svg, "history", pts); err != nil {
		t.Fatal(err)
	}
	clock := regexp.MustCompile(`\d\d:\d\d`)
	ticks := 0
	for _, s := range svgtest.Read(t, svg).Texts {
		if clock.MatchString(s) {
			ticks++
			if len([]rune(s)) > 11 {
				t.Errorf("tick label %q: want a short format", s)
			}
		}
	}
	if ticks < 3 || ticks > 10 {
		t.Errorf("%d time tick labels for 48 runs, want between 3 and 10", ticks)
	}
}

// Localisations flagged as noise are marked, and chance — a guess's
// probability, 1/communities — is drawn: the legend names both, and
// neither when no run was flagged and no chance is known.
func TestHistoryMarksNoiseAndChance(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var pts []HistoryPoint
	for h := 0; h < 6; h++ {
		at := t0.Add(time.Duration(h) * time.Hour)
		pts = append(pts, HistoryPoint{At: at, Label: at.Format("2006-01-02T15:04Z"), Community: "7", Probability: 0.3 + 0.1*float64(h),
			Noise: h < 2, Chance: 0.25})
	}
	dir := t.TempDir()
	svg := filepath.Join(dir, "h.svg")
	if err := TopCommunityHistory(svg, "history", pts); err != nil {
		t.Fatal(err)
	}
	doc := svgtest.Read(t, svg)
	if !doc.HasText("not a finding") {
		t.Errorf("no legend for the runs flagged as noise: %q", doc.Texts)
	}
	if !doc.HasText("chance") {
		t.Errorf("no legend for chance: %q", doc.Texts)
	}
	for i := range pts {
		pts[i].Noise, pts[i].Chance = false, 0
	}
	if err := TopCommunityHistory(svg, "history", pts); err != nil {
		t.Fatal(err)
	}
	doc = svgtest.Read(t, svg)
	if doc.HasText("not a finding") || doc.HasText("chance") {
		t.Errorf("a noise or chance legend with no run flagged and no chance known: %q", doc.Texts)
	}
}

// Tick labels tell different runs apart: epochs written as times without
// a zone (README's --epoch 2026-11-27T06:00) read as times, not cut to
// "2026-11-27T…" each; runs in one minute get seconds; run ids read as
// their start; other epochs sharing a long prefix show what follows it.
// The same epoch twice may share its label.
func TestHistoryTickLabelsDiffer(t *testing.T) {
	at := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		labels []string
		want   []string
	}{
		{"times without a zone", []string{"2026-11-27T06:00", "2026-11-27T07:00", "2026-11-27T08:00"}, []string{"06:00", "07:00", "08:00"}},
		{"one minute", []string{"2026-11-27T06:00:05Z", "2026-11-27T06:00:35Z"}, []string{"06:00:05", "06:00:35"}},
		{"run ids", []string{"run-20261127T225936Z-8290ae0ef27d", "run-20261128T010203Z-5815c408ffbe"},
			[]string{"11-27 22:59", "11-28 01:02"}},
		{"a shared prefix", []string{"building-7-monday-morning", "building-7-monday-evening"}, []string{"…morning", "…evening"}},
		{"the same epoch twice", []string{"nightly", "nightly", "weekly"}, []string{"nightly", "nightly", "weekly"}},
	}
	for _, tc := range cases {
		var pts []HistoryPoint
		for i, l := range tc.labels {
			pts = append(pts, HistoryPoint{At: at.Add(time.Duration(i) * time.Minute), Label: l, Community: "1", Probability: 0.5})
		}
		ticks, _ := historyTicks(pts, 8)
		var got []string
		for _, tk := range ticks {
			got = append(got, tk.Label)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: ticks %q, want %q", tc.name, got, tc.want)
		}
	}
}
