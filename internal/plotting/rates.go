package plotting

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

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

// shapes tell series apart where their colours overlap.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.RingGlyph{}}

// Rates writes panels side by side: each series as points joined by a
// line with error bars for its interval, and its chance level. Every x
// value swept is a labelled tick; with several series, each is shifted
// a little sideways, with its own marker and every other one dashed, so
// that equal rates do not hide one series under another.
func Rates(path, caption string, panels []RatePanel) error {
	var row []*plot.Plot
	for _, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text, p.Y.Label.Text = pn.XLabel, pn.YLabel
		if pn.LogX {
			p.X.Scale = plot.LogScale{}
		}
		lo, hi, ticks, err := sweptTicks(pn)
		if err != nil {
			return err
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, 0, 1.05
		p.Add(plotter.NewGrid())
		for j, s := range pn.Series {
			pts := make(plotter.XYs, len(s.X))
			errs := make(plotter.YErrors, len(s.X))
			for i := range s.X {
				pts[i] = plotter.XY{X: dodge(pn, j, s.X[i], lo, hi), Y: s.Y[i]}
				errs[i].Low, errs[i].High = s.Y[i]-s.Lo[i], s.Hi[i]-s.Y[i]
			}
			s.Dashed = s.Dashed || j%2 == 1
			line, scatter, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			line.Color, line.Width = s.Color, vg.Points(1.5)
			if s.Dashed {
				line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			scatter.Color, scatter.Shape, scatter.Radius = s.Color, shapes[j%len(shapes)], vg.Points(3)
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

// sweptTicks checks pn's series and returns the x range (the values swept
// with a margin) and a labelled tick at every value swept.
func sweptTicks(pn RatePanel) (lo, hi float64, ticks []plot.Tick, err error) {
	seen := map[float64]bool{}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range pn.Series {
		if len(s.X) == 0 || len(s.Y) != len(s.X) || len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
			return 0, 0, nil, fmt.Errorf("plotting: series %q needs matching X, Y, Lo, Hi", s.Label)
		}
		for _, x := range s.X {
			if pn.LogX && !(x > 0) {
				return 0, 0, nil, fmt.Errorf("plotting: series %q: x = %g on a log axis", s.Label, x)
			}
			if !seen[x] {
				seen[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 4, 64)})
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if len(ticks) > 12 { // too many to label: label every other one
		slices.SortFunc(ticks, func(a, b plot.Tick) int { return cmp.Compare(a.Value, b.Value) })
		for i := 1; i < len(ticks); i += 2 {
			ticks[i].Label = ""
		}
	}
	if pn.LogX {
		f := math.Max(math.Pow(hi/lo, 0.08), 1.25)
		return lo / f, hi * f, ticks, nil
	}
	pad := math.Max((hi-lo)*0.08, 0.5)
	return lo - pad, hi + pad, ticks, nil
}

// dodge shifts series j of pn sideways by a small fraction of the x range
// [lo, hi] (in log space on a log axis), centred on the true x.
func dodge(pn RatePanel, j int, x, lo, hi float64) float64 {
	k := len(pn.Series)
	if k < 2 {
		return x
	}
	off := (float64(j) - float64(k-1)/2) * 0.012
	if pn.LogX {
		return x * math.Pow(hi/lo, off)
	}
	return x + off*(hi-lo)
}

// alignedRow writes plots side by side with a caption below them, wrapped
// to fit.
func alignedRow(path, caption string, row []*plot.Plot) error {
	const panelW, h = 11 * vg.Centimeter, 9 * vg.Centimeter
	w := panelW * vg.Length(len(row))
	c, err := newCanvas(path, w, h)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	// The caption wrapped to the picture's width (fitText), with room
	// below the plots for its lines.
	const captionSize, lead = 9.0, 11.0
	lines, size := fitText(caption, captionSize, false, float64(w)-2*float64(vg.Millimeter*4), " · ")
	room := max(vg.Centimeter, vg.Points(lead*float64(len(lines)))+vg.Millimeter*3)
	top := draw.Crop(dc, 0, 0, room, 0)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, top)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	font := plot.DefaultFont
	font.Size = vg.Points(size)
	sty := draw.TextStyle{Color: color.Black, Font: font, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter}
	for i, l := range lines {
		dc.FillText(sty, vg.Point{X: w / 2, Y: vg.Millimeter*2 + vg.Points(lead*float64(len(lines)-1-i))}, l)
	}
	return writeCanvas(c, path)
}
