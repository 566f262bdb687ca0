package plotting

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// RefLine is a reference curve drawn over a log-log panel, such as an
// asymptotic rate C·x^p.
type RefLine struct {
	Label  string
	F      func(x float64) float64
	Dashed bool
	Color  color.Color
}

// LogLogPanel is one panel of LogLogPanels: computed points (X, Y > 0)
// and reference curves.
type LogLogPanel struct {
	Title, XLabel, YLabel string
	X, Y                  []float64
	Refs                  []RefLine
}

// Colours for reference lines.
var (
	Red   color.Color = red
	Blue  color.Color = blue
	Green color.Color = color.RGBA{R: 20, G: 140, B: 60, A: 255}
)

// LogLogPanels writes the panels side by side on log-log axes to path
// (.png, .svg or .pdf, checked by CheckImagePath), with a caption line
// below them.
func LogLogPanels(path, caption string, panels []LogLogPanel) error {
	if len(panels) == 0 {
		return fmt.Errorf("plotting: no panels")
	}
	row := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := logLogPanel(pn)
		if err != nil {
			return err
		}
		row[i] = p
	}
	return alignedRow(path, caption, row)
}

func logLogPanel(pn LogLogPanel) (*plot.Plot, error) {
	if len(pn.X) == 0 || len(pn.X) != len(pn.Y) {
		return nil, fmt.Errorf("plotting: panel %q needs matching non-empty X and Y", pn.Title)
	}
	p := plot.New()
	p.Title.Text = pn.Title
	p.X.Label.Text, p.Y.Label.Text = pn.XLabel, pn.YLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	var pts plotter.XYs
	for i := range pn.X {
		if pn.X[i] > 0 && pn.Y[i] > 0 {
			pts = append(pts, plotter.XY{X: pn.X[i], Y: pn.Y[i]})
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("plotting: panel %q has no positive points", pn.Title)
	}
	lo, hi := pts[0].Y, pts[0].Y
	for _, q := range pts {
		lo, hi = math.Min(lo, q.Y), math.Max(hi, q.Y)
	}
	for _, r := range pn.Refs {
		var ref plotter.XYs
		for _, q := range pts {
			if y := r.F(q.X); y > 0 && !math.IsInf(y, 0) {
				ref = append(ref, plotter.XY{X: q.X, Y: y})
			}
		}
		if len(ref) < 2 {
			continue
		}
		l, err := plotter.NewLine(ref)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = r.Color, vg.Points(1.2)
		if r.Dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(r.Label, l)
	}
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = color.Black, vg.Points(1)
	scatter.Color, scatter.Shape, scatter.Radius = color.Black, draw.CircleGlyph{}, vg.Points(2.5)
	p.Add(line, scatter)
	p.Legend.Add("computed Δ2", line, scatter)
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	// Keep the view on the computed points; reference lines may leave it.
	p.Y.Min, p.Y.Max = lo/3, hi*3
	return p, nil
}

// CheckImagePath refuses an output path whose extension is not an image
// format the plots can write (.png, .svg, .pdf), before any work is done.
func CheckImagePath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg", ".pdf":
		return nil
	}
	return fmt.Errorf("plot %q: unsupported format %q (want .png, .svg or .pdf)", path, filepath.Ext(path))
}

func newCanvas(path string, w, h vg.Length) (vg.CanvasSizer, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return vgimg.PngCanvas{Canvas: vgimg.New(w, h)}, nil
	case ".svg":
		return vgsvg.New(w, h), nil
	case ".pdf":
		return vgpdf.New(w, h), nil
	}
	return nil, CheckImagePath(path)
}

// writeCanvas writes c to a temporary file next to path and renames it
// into place, so a failure never leaves a partial image.
func writeCanvas(c vg.CanvasSizer, path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".plot-*"+filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("plot %q: %w", path, err)
	}
	var werr error
	switch cv := c.(type) {
	case vgimg.PngCanvas:
		_, werr = cv.WriteTo(f)
	case *vgsvg.Canvas:
		_, werr = cv.WriteTo(f)
	case *vgpdf.Canvas:
		_, werr = cv.WriteTo(f)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644) // CreateTemp makes 0600; a picture is not a secret
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("plot %q: %w", path, werr)
	}
	return nil
}
