package plotting

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/internal/svgtest"
)

func decodePNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s is only %v", path, b)
	}
}

func TestLineSources(t *testing.T) {
	n := 100
	x, f0, fh := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i+1) / float64(n)
	}
	f0[23], f0[75] = 1, 1
	fh[22], fh[23], fh[76] = 0.4, 0.5, 0.8
	path := filepath.Join(t.TempDir(), "line.png")
	if err := LineSources(path, x, f0, fh, []float64{0.01, 0.02, 0.02, 0.05}, "test", "caption"); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path)
	if err := LineSources(path, x, f0[:3], fh, nil, "bad", ""); err == nil {
		t.Error("length mismatch accepted")
	}
}

func TestCommunityBars(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bars.png")
	if err := CommunityBars(path, []string{"a", "b", "c"}, []float64{0.7, 0.2, 0.1}, []bool{true, false, false}, "test"); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path)
	if err := CommunityBars(path, nil, nil, nil, "bad"); err == nil {
		t.Error("empty input accepted")
	}
}

// TestWritePNG keeps the test figures when PLOT_DIR is set, for a visual check.
func TestWritePNG(t *testing.T) {
	dir := os.Getenv("PLOT_DIR")
	if dir == "" {
		t.Skip("PLOT_DIR not set: no figures kept for inspection")
	}
	n := 100
	x, f0, fh := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i+1) / float64(n)
	}
	f0[23], f0[75] = 1, 1
	fh[22], fh[23], fh[76] = 0.4, 0.5, 0.8
	if err := LineSources(filepath.Join(dir, "line.png"), x, f0, fh, nil, "line", ""); err != nil {
		t.Fatal(err)
	}
	if err := CommunityBars(filepath.Join(dir, "bars.png"), []string{"0", "1"}, []float64{0.8, 0.2}, []bool{true, false}, "bars"); err != nil {
		t.Fatal(err)
	}
}

// The line picture's SVG names both stems and the EMD mean it draws.
func TestLineSourcesSVG(t *testing.T) {
	n := 50
	x, f0, fh := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i+1) / float64(n)
	}
	f0[10], fh[11] = 1, 0.7
	path := filepath.Join(t.TempDir(), "line.svg")
	if err := LineSources(path, x, f0, fh, []float64{0.01, 0.02, 0.02, 0.05}, "bpdn (trial 0)", "the caption"); err != nil {
		t.Fatal(err)
	}
	doc := svgtest.Read(t, path)
	for _, want := range []string{"true f0", "recovered (estimate)", "mean 0.0250", "EMD over 4 trials", "bpdn (trial 0)", "the caption"} {
		if !doc.HasText(want) {
			t.Errorf("no %q in %q", want, doc.Texts)
		}
	}
}

// Figure 2's SVG labels the computed curve and each reference line drawn,
// and leaves out a reference line with fewer than two points in view.
func TestLogLogPanelsSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ll.svg")
	pn := LogLogPanel{Title: "Δ2 against m", XLabel: "m", YLabel: "Δ2", X: []float64{10, 100, 1000}, Y: []float64{3, 9, 28},
		Refs: []RefLine{{Label: "paper: x^0.5", Color: Red, F: func(m float64) float64 { return math.Sqrt(m) }},
			{Label: "never positive", Color: Blue, F: func(float64) float64 { return -1 }}}}
	if err := LogLogPanels(path, "cap", []LogLogPanel{pn}); err != nil {
		t.Fatal(err)
	}
	doc := svgtest.Read(t, path)
	for _, want := range []string{"computed Δ2", "paper: x^0.5", "Δ2 against m", "cap"} {
		if !doc.HasText(want) {
			t.Errorf("no %q in %q", want, doc.Texts)
		}
	}
	if doc.HasText("never positive") {
		t.Error("a reference line not drawn is in the legend")
	}
}
