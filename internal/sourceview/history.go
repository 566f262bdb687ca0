package sourceview

import (
	"errors"

	"github.com/graphcloak/graphcloak/internal/plotting"
	"github.com/graphcloak/graphcloak/job"
)

// ErrNoLocalisation is a history without a localisation to draw: only
// localisations record their top community.
var ErrNoLocalisation = errors.New("sourceview: no localisation among the runs")

// maxTitleScope is the longest scope named in a history's title.
const maxTitleScope = 24

// History draws the likely source community over time to path
// (plotting.TopCommunityHistory): the localisations among rows, which
// are listed newest first, drawn oldest first, those whose verdict was
// noise marked, with chance. A short scope is named in the title.
func History(path, scope string, rows []job.RunRow) error {
	var pts []plotting.HistoryPoint
	for i := len(rows) - 1; i >= 0; i-- {
		if r := rows[i]; r.TopCommunity != "" {
			pts = append(pts, plotting.HistoryPoint{At: r.StartedAt, Label: r.Epoch, Community: r.TopCommunity, Probability: r.TopProbability,
				Noise: r.NoiseDominated != nil && *r.NoiseDominated, Chance: r.Chance})
		}
	}
	if len(pts) == 0 {
		return ErrNoLocalisation
	}
	title := "likely source community over time"
	if scope != "" && len(scope) <= maxTitleScope {
		title += " (scope " + scope + ")"
	}
	return plotting.TopCommunityHistory(path, title, pts)
}
