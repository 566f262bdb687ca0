package plotting

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// GraphPicture draws v to path: .svg (one <circle class="node"> per node,
// one class="community" per community, each with a <title> tooltip), .png
// or .pdf. The format is checked before any work; the file is written
// through a temporary file and never left half-written.
func GraphPicture(path string, v GraphView) error {
	if err := CheckImagePath(path); err != nil {
		return err
	}
	s, err := buildScene(v)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		err = s.writeSVG(&buf)
	case ".png":
		c := vgimg.New(vg.Length(s.w), vg.Length(s.h))
		s.draw(c)
		_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(&buf)
	case ".pdf":
		c := vgpdf.New(vg.Length(s.w), vg.Length(s.h))
		s.draw(c)
		_, err = c.WriteTo(&buf)
	}
	if err != nil {
		return fmt.Errorf("plot %q: %w", path, err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place (mode 0644).
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".plot-*"+filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("plot %q: %w", path, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
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

func rgba(c color.NRGBA) string {
	return fmt.Sprintf("rgba(%d,%d,%d,%.3f)", c.R, c.G, c.B, float64(c.A)/255)
}

// writeSVG writes the scene as SVG (y flipped: SVG's y axis points down).
func (s *scene) writeSVG(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.1f %.1f" font-family="sans-serif">`+"\n", s.w, s.h, s.w, s.h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	y := func(v float64) float64 { return s.h - v }
	b.WriteString(`<g class="edges">` + "\n")
	for _, l := range s.lines {
		fmt.Fprintf(&b, `<line class="edge" x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" stroke="%s" stroke-width="%.2f"/>`+"\n",
			l.x1, y(l.y1), l.x2, y(l.y2), rgba(l.c), l.width)
	}
	b.WriteString("</g>\n")
	for _, d := range append(append([]sceneDisc(nil), s.discs...), s.legend...) {
		fill := "none"
		if d.fill.A > 0 {
			fill = rgba(d.fill)
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%.2f" cy="%.2f" r="%.2f" fill="%s" stroke="%s" stroke-width="%.2f">`,
			d.class, d.x, y(d.y), d.r, fill, rgba(d.stroke), d.strokeWidth)
		if d.title != "" {
			fmt.Fprintf(&b, "<title>%s</title>", html.EscapeString(d.title))
		}
		b.WriteString("</circle>\n")
	}
	for _, t := range s.texts {
		weight := "normal"
		if t.bold {
			weight = "bold"
		}
		fill := "black"
		if t.colour.A > 0 {
			fill = rgba(t.colour)
		}
		fmt.Fprintf(&b, `<text x="%.2f" y="%.2f" font-size="%.1f" text-anchor="%s" font-weight="%s" fill="%s">%s</text>`+"\n",
			t.x, y(t.y), t.size, t.anchor, weight, fill, html.EscapeString(t.text))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// draw renders the scene on a vg canvas (PNG, PDF).
func (s *scene) draw(c vg.Canvas) {
	dc := draw.NewCanvas(c, vg.Length(s.w), vg.Length(s.h))
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	for _, l := range s.lines {
		dc.StrokeLine2(draw.LineStyle{Color: l.c, Width: vg.Length(l.width)},
			vg.Length(l.x1), vg.Length(l.y1), vg.Length(l.x2), vg.Length(l.y2))
	}
	for _, d := range append(append([]sceneDisc(nil), s.discs...), s.legend...) {
		var p vg.Path
		p.Move(vg.Point{X: vg.Length(d.x + d.r), Y: vg.Length(d.y)})
		p.Arc(vg.Point{X: vg.Length(d.x), Y: vg.Length(d.y)}, vg.Length(d.r), 0, 2*3.141592653589793)
		p.Close()
		if d.fill.A > 0 {
			dc.SetColor(d.fill)
			dc.Fill(p)
		}
		if d.strokeWidth > 0 {
			dc.SetLineStyle(draw.LineStyle{Color: d.stroke, Width: vg.Length(d.strokeWidth)})
			dc.Stroke(p)
		}
	}
	for _, t := range s.texts {
		// vgpdf registers a face under its name alone and then asks for
		// it with style "B": bold text is drawn regular in a PDF.
		_, pdf := c.(*vgpdf.Canvas)
		font := textFont(t.size, t.bold && !pdf)
		align := draw.XLeft
		switch t.anchor {
		case "middle":
			align = draw.XCenter
		case "end":
			align = draw.XRight
		}
		var fill color.Color = color.Black
		if t.colour.A > 0 {
			fill = t.colour
		}
		sty := draw.TextStyle{Color: fill, Font: font, Handler: plot.DefaultTextHandler, XAlign: align}
		dc.FillText(sty, vg.Point{X: vg.Length(t.x), Y: vg.Length(t.y)}, t.text)
	}
}
