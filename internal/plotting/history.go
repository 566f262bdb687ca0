package plotting

import (
	"fmt"
	"image/color"
	"strings"
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
// small unlabelled tick marks every other run), in the shortest format
// that tells different runs apart: an epoch that is a time (serve's
// slots, README's --epoch 2026-11-21T06:00, a run id's start) is shown as
// "15:04" when every run is on one day, else "01-02 15:04", with seconds
// or the year only when runs need them to differ; other epochs as they
// are, cut to 12 characters — the part after what they all begin with
// when that tells them apart. timed reports whether the labels are times.
func historyTicks(pts []HistoryPoint, maxLabels int) (ticks []plot.Tick, timed bool) {
	times := make([]time.Time, len(pts))
	names := make([]string, len(pts))
	timed = true
	for i, h := range pts {
		t, ok := epochTime(h.Label)
		if h.Label == "" {
			t, ok = h.At, !h.At.IsZero()
		}
		times[i], names[i] = t.UTC(), h.Label
		timed = timed && ok
	}
	step := (len(pts) + maxLabels - 1) / maxLabels
	var shown []int // the runs labelled
	for i := range pts {
		if i%step == 0 {
			shown = append(shown, i)
		}
	}
	var labels []string
	if timed {
		keys := make([]string, len(pts))
		for i, t := range times {
			keys[i] = t.Format(time.RFC3339Nano)
		}
		y, m, d := times[0].Date()
		oneDay := true
		for _, t := range times {
			ty, tm, td := t.Date()
			oneDay = oneDay && ty == y && tm == m && td == d
		}
		layouts := []string{"01-02 15:04", "01-02 15:04:05", "2006-01-02 15:04:05", time.RFC3339Nano}
		if oneDay {
			layouts = append([]string{"15:04", "15:04:05"}, layouts...)
		}
		labels = distinctLabels(shown, keys, func(i int, layout string) string { return times[i].Format(layout) }, layouts)
	} else {
		prefix := commonPrefix(names, shown)
		cut := func(i int, how string) string {
			r := []rune(names[i])
			switch how {
			case "start":
				if len(r) > 12 {
					return string(r[:11]) + "…"
				}
			case "after prefix":
				if rest := r[len([]rune(prefix)):]; len(r) > 12 && len(rest) > 0 {
					return "…" + string(rest[:min(len(rest), 11)])
				}
			case "end":
				if len(r) > 12 {
					return "…" + string(r[len(r)-11:])
				}
			}
			return string(r)
		}
		labels = distinctLabels(shown, names, cut, []string{"start", "after prefix", "end", "whole"})
	}
	for i := range pts {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: labels[i]})
	}
	return ticks, timed
}

// distinctLabels labels the runs shown with the first of the formats
// under which two of them share a label only when their keys are equal
// (the same epoch twice is one label), the last format otherwise; the
// runs not shown get "".
func distinctLabels(shown []int, keys []string, format func(i int, f string) string, formats []string) []string {
	labels := make([]string, len(keys))
	for n, f := range formats {
		of := map[string]string{} // label → key
		ok := true
		for _, i := range shown {
			l := format(i, f)
			if k, seen := of[l]; seen && k != keys[i] {
				ok = false
			}
			of[l], labels[i] = keys[i], l
		}
		if ok || n == len(formats)-1 {
			break
		}
	}
	return labels
}

// commonPrefix is what every shown name begins with.
func commonPrefix(names []string, shown []int) string {
	if len(shown) == 0 {
		return ""
	}
	p := []rune(names[shown[0]])
	for _, i := range shown[1:] {
		r := []rune(names[i])
		n := 0
		for n < len(p) && n < len(r) && p[n] == r[n] {
			n++
		}
		p = p[:n]
	}
	return string(p)
}

// epochTime reads an epoch that is a time: serve's slots
// (2026-11-22T10:00Z), a time without a zone (UTC: README's --epoch
// 2026-11-21T06:00), or a run id's start (run-20261127T225936Z-…, the
// epoch of a release given none).
func epochTime(s string) (time.Time, bool) {
	if rest, ok := strings.CutPrefix(s, "run-"); ok && len(rest) >= len("20060102T150405Z") {
		t, err := time.Parse("20060102T150405Z", rest[:len("20060102T150405Z")])
		return t, err == nil
	}
	for _, layout := range []string{"2006-01-02T15:04Z07:00", time.RFC3339, "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04",
		"2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
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
