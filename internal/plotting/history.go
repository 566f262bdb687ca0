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
}

// TopCommunityHistory writes the top community's probability over time to
// path (.png, .svg, .pdf): one marker per run in order (pts oldest first),
// labelled with its epoch, coloured by which community was on top, joined
// by a grey line, with the community names in the legend.
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
	labels := make([]string, len(pts))
	for i, h := range pts {
		labels[i] = h.Label
		if labels[i] == "" {
			labels[i] = h.At.UTC().Format("01-02 15:04")
		}
	}
	p.NominalX(labels...)
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
	p.Legend.Top = true
	c, err := newCanvas(path, 18*vg.Centimeter, 9*vg.Centimeter)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	return writeCanvas(c, path)
}
