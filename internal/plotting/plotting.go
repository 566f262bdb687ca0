package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	red  = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	blue = color.RGBA{R: 30, G: 80, B: 200, A: 255}
)

// stems adds a vertical segment from 0 to y at every x with y ≠ 0, and a
// marker at the top, in the given colour. It returns the marker plotter
// for the legend.
func stems(p *plot.Plot, x, y []float64, c color.Color, dashed bool, shape draw.GlyphDrawer) (*plotter.Scatter, error) {
	var tops plotter.XYs
	for i := range x {
		if y[i] == 0 {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: x[i], Y: 0}, {X: x[i], Y: y[i]}})
		if err != nil {
			return nil, err
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		if dashed {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
		p.Add(l)
		tops = append(tops, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(tops) == 0 {
		tops = plotter.XYs{{X: x[0], Y: 0}}
	}
	s, err := plotter.NewScatter(tops)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Color = c
	s.GlyphStyle.Shape = shape
	s.GlyphStyle.Radius = vg.Points(3)
	p.Add(s)
	return s, nil
}

// LineSources writes the paper's Figure 1 beside the EMD distribution:
// true sources f0 (red stems) and the recovered f̂ of one trial (blue
// dashed stems) against position x on [0, 1], and a histogram of the EMD
// over all trials (emds; omitted when empty).
func LineSources(path string, x, f0, fhat, emds []float64, title, caption string) error {
	if len(x) == 0 || len(f0) != len(x) || len(fhat) != len(x) {
		return errors.New("plotting: x, f0 and fhat must have the same non-zero length")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "position x"
	p.Y.Label.Text = "source mass"
	p.X.Min, p.X.Max = 0, 1
	top := 0.0
	for i := range x {
		top = math.Max(top, math.Max(f0[i], fhat[i]))
	}
	p.Y.Min, p.Y.Max = 0, math.Max(1, top)*1.15
	p.Add(plotter.NewGrid())
	ts, err := stems(p, x, f0, red, false, draw.CircleGlyph{})
	if err != nil {
		return err
	}
	rs, err := stems(p, x, fhat, blue, true, draw.TriangleGlyph{})
	if err != nil {
		return err
	}
	p.Legend.Add("true f0", ts)
	p.Legend.Add("recovered (estimate)", rs)
	p.Legend.Top = true
	row := []*plot.Plot{p}
	if len(emds) > 0 {
		h, err := emdHistogram(emds)
		if err != nil {
			return err
		}
		row = append(row, h)
	}
	return alignedRow(path, caption, row)
}

// emdHistogram is the distribution of the EMD over trials, with its mean.
func emdHistogram(emds []float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("EMD over %d trials", len(emds))
	p.X.Label.Text = "EMD(f0, f̂) (normalised)"
	p.Y.Label.Text = "trials"
	bins := max(5, min(30, len(emds)/3))
	h, err := plotter.NewHist(plotter.Values(emds), bins)
	if err != nil {
		return nil, err
	}
	h.FillColor = color.RGBA{R: 120, G: 150, B: 220, A: 255}
	h.LineStyle.Color = blue
	p.Add(plotter.NewGrid(), h)
	mean := 0.0
	for _, e := range emds {
		mean += e / float64(len(emds))
	}
	top := 0.0
	for _, b := range h.Bins {
		top = math.Max(top, b.Weight)
	}
	m, err := plotter.NewLine(plotter.XYs{{X: mean, Y: 0}, {X: mean, Y: top * 1.05}})
	if err != nil {
		return nil, err
	}
	m.Color, m.Width, m.Dashes = red, vg.Points(1.5), []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(m)
	p.Legend.Add(fmt.Sprintf("mean %.4f", mean), m)
	p.Legend.Top = true
	return p, nil
}

// CommunityBars writes a bar chart of community probabilities (shares), one
// bar per community in the given order, the true source communities
// (truth[i]) in red and the rest in blue.
func CommunityBars(path string, names []string, shares []float64, truth []bool, title string) error {
	if len(names) == 0 || len(shares) != len(names) || len(truth) != len(names) {
		return errors.New("plotting: names, shares and truth must have the same non-zero length")
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "probability"
	p.Y.Min, p.Y.Max = 0, 1.15 // headroom for the legend
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Add(plotter.NewGrid())
	w := vg.Points(math.Max(6, math.Min(40, 360/float64(len(names)))))
	var legendTrue, legendOther *plotter.BarChart
	for i := range names {
		vals := make(plotter.Values, len(names))
		vals[i] = shares[i]
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		b.LineStyle.Width = 0
		if truth[i] {
			b.Color = red
			legendTrue = b
		} else {
			b.Color = blue
			legendOther = b
		}
		p.Add(b)
	}
	if legendTrue != nil {
		p.Legend.Add("true source community", legendTrue)
	}
	if legendOther != nil {
		p.Legend.Add("other communities", legendOther)
	}
	p.Legend.Top = true
	if len(names) <= 30 {
		p.NominalX(names...)
		p.X.Label.Text = "community (by rank)"
	} else {
		p.X.Label.Text = fmt.Sprintf("%d communities (ranked)", len(names))
	}
	return save(p, path, 16*vg.Centimeter, 10*vg.Centimeter)
}

func save(p *plot.Plot, path string, w, h vg.Length) error {
	if err := p.Save(w, h, path); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return nil
}
