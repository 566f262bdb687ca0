package plotting

import (
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
