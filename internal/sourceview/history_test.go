package sourceview

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/internal/svgtest"
	"github.com/graphcloak/graphcloak/job"
)

// TestHistory: the localisations are drawn with the noise mark and
// chance, a short scope named in the title; runs without a localisation
// draw nothing.
func TestHistory(t *testing.T) {
	noise, answer := true, false
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rows := []job.RunRow{
		{RunID: "b", Command: "locate", Epoch: "e2", StartedAt: t0.Add(time.Hour), TopCommunity: "1", TopProbability: 0.9, NoiseDominated: &answer, Chance: 0.25},
		{RunID: "r", Command: "release", Epoch: "e2", StartedAt: t0.Add(time.Minute)},
		{RunID: "a", Command: "locate", Epoch: "e1", StartedAt: t0, TopCommunity: "3", TopProbability: 0.3, NoiseDominated: &noise, Chance: 0.25},
	}
	svg := filepath.Join(t.TempDir(), "h.svg")
	if err := History(svg, "whisper", rows); err != nil {
		t.Fatal(err)
	}
	doc := svgtest.Read(t, svg)
	if !doc.HasText("not a finding") || !doc.HasText("chance") || !doc.HasText("scope whisper") {
		t.Errorf("history picture without the noise mark, chance or scope: %q", doc.Texts)
	}
	if err := History(filepath.Join(t.TempDir(), "none.svg"), "", rows[1:2]); !errors.Is(err, ErrNoLocalisation) {
		t.Errorf("releases only: %v, want ErrNoLocalisation", err)
	}
}
