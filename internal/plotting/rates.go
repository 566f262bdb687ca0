package plotting

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RateSeries is a rate against a parameter with a confidence interval per
// point (Lo ≤ Y ≤ Hi).
type RateSeries struct {
	Label     string
	X, Y      []float64
	Lo, Hi    []float64
	Color     color.Color
	Dashed    bool
	ChanceY   float64 // drawn as a dotted horizontal line when > 0
	ChanceTag string
}

// RatePanel is one panel of Rates.
type RatePanel struct {
	Title, XLabel, YLabel string
	LogX                  bool
	Series                []RateSeries
}

// Rates writes panels side by side: each series as points joined by a
// line with error bars for its interval, and its chance level.
func Rates(path, caption string, panels []RatePanel) error {
	var row []*plot.Plot
	for _, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text, p.Y.Label.Text = pn.XLabel, pn.YLabel
		if pn.LogX {
			p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}
		p.Y.Min, p.Y.Max = 0, 1.05
		p.Add(plotter.NewGrid())
		for _, s := range pn.Series {
			if len(s.X) == 0 || len(s.Y) != len(s.X) || len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
				return fmt.Errorf("plotting: series %q needs matching X, Y, Lo, Hi", s.Label)
			}
			pts := make(plotter.XYs, len(s.X))
			errs := make(plotter.YErrors, len(s.X))
			for i := range s.X {
				pts[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
				errs[i].Low, errs[i].High = s.Y[i]-s.Lo[i], s.Hi[i]-s.Y[i]
			}
			line, scatter, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			line.Color, line.Width = s.Color, vg.Points(1.5)
			if s.Dashed {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			scatter.Color, scatter.Shape, scatter.Radius = s.Color, draw.CircleGlyph{}, vg.Points(3)
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{pts, errs})
			if err != nil {
				return err
			}
			bars.Color, bars.Width = s.Color, vg.Points(1)
			p.Add(line, scatter, bars)
			p.Legend.Add(s.Label, line, scatter)
			if s.ChanceY > 0 {
				lo, hi := s.X[0], s.X[len(s.X)-1]
				if lo == hi {
					lo, hi = lo*0.8, hi*1.25
				}
				ch, err := plotter.NewLine(plotter.XYs{{X: lo, Y: s.ChanceY}, {X: hi, Y: s.ChanceY}})
				if err != nil {
					return err
				}
				ch.Color, ch.Width, ch.Dashes = s.Color, vg.Points(1), []vg.Length{vg.Points(1), vg.Points(3)}
				p.Add(ch)
				p.Legend.Add(s.ChanceTag, ch)
			}
		}
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		row = append(row, p)
	}
	return alignedRow(path, caption, row)
}

// alignedRow writes plots side by side with a caption line below them.
func alignedRow(path, caption string, row []*plot.Plot) error {
	const panelW, h = 11 * vg.Centimeter, 9 * vg.Centimeter
	w := panelW * vg.Length(len(row))
	c, err := newCanvas(path, w, h)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	top := draw.Crop(dc, 0, 0, vg.Centimeter, 0) // room for the caption below
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, top)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	if caption != "" {
		font := plot.DefaultFont
		font.Size = vg.Points(9)
		sty := draw.TextStyle{Color: color.Black, Font: font, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
		dc.FillText(sty, vg.Point{X: w / 2, Y: vg.Millimeter * 2}, caption)
	}
	return writeCanvas(c, path)
}
