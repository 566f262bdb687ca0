package plotting

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/graphcloak/graphcloak/internal/svgtest"
)

// A verdict as locate states it (forecast.Judge's forecast sentence).
const longVerdict = "noise: releases like this one with a source of at least 3.2 units (the readings carry 41.5 ± 8.9) " +
	"name the right community 28.3% [18.5%, 40.8%] of the time (200 simulated), which cannot be told from a guess (25.0%) — not a finding"

// textExtent is the width in points of text at size, the widest of the
// faces it may be drawn in: Liberation Sans (metric-compatible with the
// sans-serif of a browser showing the SVG) and Serif.
func textExtent(text string, size float64, bold bool) float64 {
	w := 0.0
	for _, variant := range []font.Variant{"Sans", "Serif"} {
		f := font.Font{Typeface: "Liberation", Variant: variant, Size: vg.Length(size)}
		if bold {
			f.Weight = xfont.WeightBold
		}
		bw, _, _ := plot.DefaultTextHandler.Box(text, f)
		w = max(w, float64(bw))
	}
	return w
}

// Every text of a graph picture — the title, the red verdict, the
// caption with the privacy parameters — fits the image: measured with the
// font's metrics, each lies within the picture's width, none overlaps
// another, and nothing of the verdict is lost.
func TestGraphPictureTextsFit(t *testing.T) {
	v := ringView(60, 4)
	v.Title = "sbm:sizes=100x100x100x100x100,pin=0.1,pout=0.003: likely source communities (posterior estimator)"
	v.Verdict = longVerdict
	v.Caption = "ε = 0.25, δ = 1e-05, τ = 1, σ = 12.34"
	s, err := buildScene(v)
	if err != nil {
		t.Fatal(err)
	}
	type box struct {
		text           string
		x0, x1, y0, y1 float64
	}
	var boxes []box
	for _, tx := range s.texts {
		w := textExtent(tx.text, tx.size, tx.bold)
		x0 := tx.x
		switch tx.anchor {
		case "middle":
			x0 -= w / 2
		case "end":
			x0 -= w
		}
		if x0 < 0 || x0+w > s.w {
			t.Errorf("%q (%.0f pt at %.0f pt) spans x %.0f … %.0f pt, outside the picture's 0 … %.0f", tx.text, w, tx.size, x0, x0+w, s.w)
		}
		if tx.y-0.25*tx.size < 0 || tx.y+tx.size > s.h {
			t.Errorf("%q at y %.0f pt: outside the picture's 0 … %.0f", tx.text, tx.y, s.h)
		}
		boxes = append(boxes, box{tx.text, x0, x0 + w, tx.y - 0.25*tx.size, tx.y + 0.8*tx.size})
	}
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				t.Errorf("%q overlaps %q", a.text, b.text)
			}
		}
	}
	svg := filepath.Join(t.TempDir(), "g.svg")
	if err := GraphPicture(svg, v); err != nil {
		t.Fatal(err)
	}
	all := svgtest.Read(t, svg).Texts
	if joined := strings.Join(all, " "); !strings.Contains(joined, longVerdict) {
		t.Errorf("the verdict is not all there, in order: %q", all)
	}
}

// In pixels: the PNG of a picture with a long verdict has no verdict-red
// pixel in its outer columns (before, the red line ran off both sides).
func TestGraphPicturePNGVerdictNotClipped(t *testing.T) {
	v := ringView(60, 4)
	v.Verdict = longVerdict
	path := filepath.Join(t.TempDir(), "g.png")
	if err := GraphPicture(path, v); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	red := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		return r>>8 > 150 && g>>8 < 90 && bl>>8 < 100
	}
	const edge = 4 // pixels
	found, clipped := false, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if red(x, y) {
				found = true
				if x < b.Min.X+edge || x >= b.Max.X-edge {
					clipped++
				}
			}
		}
	}
	if !found {
		t.Fatal("no verdict-red pixel in the picture")
	}
	if clipped > 0 {
		t.Errorf("%d verdict-red pixels within %d px of the left or right edge of a %d px wide picture: the verdict is clipped", clipped, edge, b.Dx())
	}
}

// The caption under a row of plots (Figure 2's, one panel 11 cm wide)
// fits the picture: every line of it, measured with the font's metrics,
// is no wider than the picture, and all of it is there.
func TestAlignedRowCaptionFits(t *testing.T) {
	caption := "Δ2 of the 1-D heat kernel (certified), with the paper's rates (red, dashed) and the derived ones"
	path := filepath.Join(t.TempDir(), "ll.svg")
	pn := LogLogPanel{Title: "Δ2 against m", XLabel: "m", YLabel: "Δ2", X: []float64{10, 100, 1000}, Y: []float64{3, 9, 28}}
	if err := LogLogPanels(path, caption, []LogLogPanel{pn}); err != nil {
		t.Fatal(err)
	}
	width := float64(11 * vg.Centimeter)
	var parts []string
	for _, tx := range svgtest.Read(t, path).Texts {
		if len(tx) > 8 && strings.Contains(caption, tx) {
			parts = append(parts, tx)
			if w := textExtent(tx, 9, false); w > width {
				t.Errorf("caption line %q is %.0f pt wide, the picture %.0f pt", tx, w, width)
			}
		}
	}
	if strings.Join(parts, " ") != caption {
		t.Errorf("caption lines %q, want all of %q", parts, caption)
	}
}
