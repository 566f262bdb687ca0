package plotting

import (
	"fmt"
	"image/color"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HistoryPoint is one localisation: when it ran, its top community and
// that community's probability of holding the source.
type HistoryPoint struct {
	At          time.Time
	Label       string // the x-axis label: the run's epoch, or its time when empty
	Community   string
	Probability float64
	// Noise: the localisation's verdict was noise, not a finding.
	Noise bool
	// Chance is a guess's probability of naming the source community
	// (1/communities; 0: unknown).
	Chance float64
}

// TopCommunityHistory writes the top community's probability over time to
// path (.png, .svg, .pdf): one marker per run in order (pts oldest first),
// labelled with its epoch, coloured by which community was on top, joined
// by a grey line, with the community names in the legend; runs whose
// verdict was noise crossed in red, and chance drawn dashed.
func TopCommunityHistory(path, title string, pts []HistoryPoint) error {
	if err := CheckImagePath(path); err != nil {
		return err
	}
	if len(pts) == 0 {
		return fmt.Errorf("plotting: no localisations to draw")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "release epoch (oldest first)"
	p.Y.Label.Text = "probability of the top community"
	ticks, timed := historyTicks(pts, 8)
	if timed {
		p.X.Label.Text = "release epoch (UTC, oldest first)"
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(pts))-0.5
	p.Y.Min, p.Y.Max = 0, 1.05
	p.Add(plotter.NewGrid())
	all := make(plotter.XYs, len(pts))
	groups := map[string]plotter.XYs{}
	var order []string
	for i, h := range pts {
		xy := plotter.XY{X: float64(i), Y: h.Probability}
		all[i] = xy
		if _, ok := groups[h.Community]; !ok {
			order = append(order, h.Community)
		}
		groups[h.Community] = append(groups[h.Community], xy)
	}
	line, err := plotter.NewLine(all)
	if err != nil {
		return err
	}
	line.Color, line.Width = color.Gray{Y: 170}, vg.Points(1)
	p.Add(line)
	for i, name := range order {
		s, err := plotter.NewScatter(groups[name])
		if err != nil {
			return err
		}
		s.Color, s.Shape, s.Radius = categorical[i%len(categorical)], draw.CircleGlyph{}, vg.Points(4)
		p.Add(s)
		p.Legend.Add("community "+name, s)
	}
	marks, err := historyVerdicts(p, pts)
	if err != nil {
		return err
	}
	p.Legend.Top = true
	// Room above 1 for the legend, one row an entry; ticks up to 1.
	p.Y.Max = 1.05 + 0.09*float64(len(order)+marks)
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
		{Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}})
	c, err := newCanvas(path, 18*vg.Centimeter, 9*vg.Centimeter)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	return writeCanvas(c, path)
}

// historyVerdicts draws chance — a guess's probability, 1/communities,
// at each run whose chance is known — as a dashed line, and marks the
// runs flagged as noise with a red cross, each in the legend when drawn;
// it returns how many legend entries it added.
func historyVerdicts(p *plot.Plot, pts []HistoryPoint) (entries int, err error) {
	var chance, noise plotter.XYs
	for i, h := range pts {
		if h.Chance > 0 {
			chance = append(chance, plotter.XY{X: float64(i), Y: h.Chance})
		}
		if h.Noise {
			noise = append(noise, plotter.XY{X: float64(i), Y: h.Probability})
		}
	}
	if len(chance) == 1 { // a level, not a point
		chance = append(chance, plotter.XY{X: chance[0].X + 0.4, Y: chance[0].Y})
		chance[0].X -= 0.4
	}
	if len(chance) > 0 {
		l, err := plotter.NewLine(chance)
		if err != nil {
			return entries, err
		}
		l.Color, l.Width, l.Dashes = color.Gray{Y: 80}, vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
		l.StepStyle = plotter.MidStep
		p.Add(l)
		p.Legend.Add("chance (a guess: 1/communities)", l)
		entries++
	}
	if len(noise) > 0 {
		s, err := plotter.NewScatter(noise)
		if err != nil {
			return entries, err
		}
		s.Color, s.Shape, s.Radius = red, boldCross{}, vg.Points(6)
		p.Add(s)
		p.Legend.Add("noise: not a finding", s)
		entries++
	}
	return entries, nil
}

// historyTicks labels at most maxLabels of the runs, evenly spaced (a
// small unlabelled tick marks every other run), in a short format: an
// epoch that is a time is shown as "15:04" when every run is on one day,
// else "01-02 15:04"; other epochs as they are, cut to 12 characters.
// timed reports whether the labels are times.
func historyTicks(pts []HistoryPoint, maxLabels int) (ticks []plot.Tick, timed bool) {
	times := make([]time.Time, len(pts))
	timed = true
	for i, h := range pts {
		t, ok := epochTime(h.Label)
		if h.Label == "" {
			t, ok = h.At, !h.At.IsZero()
		}
		times[i] = t.UTC()
		timed = timed && ok
	}
	layout := "01-02 15:04"
	if timed {
		y, m, d := times[0].Date()
		oneDay := true
		for _, t := range times {
			ty, tm, td := t.Date()
			oneDay = oneDay && ty == y && tm == m && td == d
		}
		if oneDay {
			layout = "15:04"
		}
	}
	step := (len(pts) + maxLabels - 1) / maxLabels
	for i, h := range pts {
		label := ""
		if i%step == 0 {
			if timed {
				label = times[i].Format(layout)
			} else if label = h.Label; len([]rune(label)) > 12 {
				label = string([]rune(label)[:11]) + "…"
			}
		}
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: label})
	}
	return ticks, timed
}

// epochTime reads an epoch that is a time (serve's slots: 2026-11-22T10:00Z).
func epochTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04Z07:00", time.RFC3339, "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// boldCross is an X of two strokes 2 points wide (draw.CrossGlyph's are
// half a point: too thin over a marker).
type boldCross struct{}

func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(2)})
	r := sty.Radius * 0.75
	for _, d := range [][2]vg.Length{{r, r}, {r, -r}} {
		var p vg.Path
		p.Move(vg.Point{X: pt.X - d[0], Y: pt.Y - d[1]})
		p.Line(vg.Point{X: pt.X + d[0], Y: pt.Y + d[1]})
		c.Stroke(p)
	}
}
