package main

import (
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/svgtest"
)

// Pictures say only what they draw: each test draws a picture through the
// command a user runs and reads the SVG back — its marks, the colours of
// known nodes, its legend and caption.

// rgbaOf parses an SVG fill "rgba(r,g,b,a)".
func rgbaOf(t *testing.T, fill string) (r, g, b int) {
	t.Helper()
	var a float64
	if _, err := fmt.Sscanf(fill, "rgba(%d,%d,%d,%g)", &r, &g, &b, &a); err != nil {
		t.Fatalf("fill %q: %v", fill, err)
	}
	return r, g, b
}

// nodeValue is the value a node's tooltip ("node K: LABEL V") states.
func nodeValue(t *testing.T, title string) float64 {
	t.Helper()
	f := strings.Fields(title)
	v, err := strconv.ParseFloat(f[len(f)-1], 64)
	if err != nil {
		t.Fatalf("tooltip %q: %v", title, err)
	}
	return v
}

// captionMatchesLegend checks that what the caption says the colour is
// ("colour: X") is the legend's title, and that a ring is announced only
// when one is drawn.
func captionMatchesLegend(t *testing.T, doc svgtest.Doc) {
	t.Helper()
	rings := doc.Count("source")
	found := false
	for _, s := range doc.Texts {
		if strings.Contains(s, "ringed") || strings.Contains(s, "ring:") {
			if rings == 0 {
				t.Errorf("%q announces a ring and none is drawn", s)
			}
		}
		_, colour, ok := strings.Cut(s, "colour: ")
		if !ok {
			continue
		}
		found = true
		colour, _, _ = strings.Cut(colour, " · ")
		legend := false
		for _, u := range doc.Texts {
			legend = legend || u == colour
		}
		if !legend {
			t.Errorf("caption says the colour is %q; no legend of that (texts %q)", colour, doc.Texts)
		}
	}
	if !found {
		t.Errorf("no caption says what the colour is: %q", doc.Texts)
	}
}

// Above 5 000 nodes the picture is the community graph: the true source's
// community is ringed, and the caption names the legend it stands beside
// (the probability a community holds the source), not a node posterior.
func TestPictureCommunityGraphMarksSource(t *testing.T) {
	if testing.Short() {
		t.Skip("a 5 200-node demo")
	}
	isolateConfig(t)
	svg := filepath.Join(t.TempDir(), "c.svg")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--graph", "sbm:sizes=2600x2600,pin=0.004,pout=0.0002",
		"--tau", "1", "--epsilon", "4", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := svgtest.Read(t, svg)
	if doc.Count("node") != 0 || doc.Count("community") != 2 {
		t.Fatalf("%d nodes and %d communities drawn, want the community graph", doc.Count("node"), doc.Count("community"))
	}
	if doc.Count("source") != 1 {
		t.Errorf("%d source marks on the community graph, want 1", doc.Count("source"))
	}
	for _, s := range doc.Texts {
		if strings.Contains(s, "posterior probability of being the source") {
			t.Errorf("%q beside a legend of community probability", s)
		}
	}
	captionMatchesLegend(t, doc)
}

// Probabilities are coloured against the uniform prior 1/n: a node no
// more likely than the prior gets the scale's first colour, whatever the
// others; the legend names the prior.
func TestPictureProbabilityAgainstPrior(t *testing.T) {
	isolateConfig(t)
	svg := filepath.Join(t.TempDir(), "d.svg")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := svgtest.Read(t, svg)
	var first string // the legend's lowest swatch
	for _, c := range doc.Circles {
		if c.Class == "swatch" && c.Fill != "none" {
			first = c.Fill
			break
		}
	}
	prior := 1.0 / 500
	below, above, wrong := 0, 0, 0
	for _, c := range doc.Circles {
		if c.Class != "node" {
			continue
		}
		if nodeValue(t, c.Title) > prior {
			above++
			continue
		}
		below++
		if c.Fill != first {
			if wrong++; wrong == 1 {
				t.Errorf("%s (at most the prior %g) coloured %s, want the scale's first colour %s", c.Title, prior, c.Fill, first)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d nodes at most the prior are coloured as more likely", wrong, below)
	}
	if below == 0 || above == 0 {
		t.Fatalf("fixture: %d nodes at most the prior, %d above", below, above)
	}
	if !doc.HasText("prior") {
		t.Errorf("the legend does not name the prior: %q", doc.Texts)
	}
	captionMatchesLegend(t, doc)
	if doc.Count("source") != 1 {
		t.Errorf("%d source rings", doc.Count("source"))
	}
}

// The noise verdict is in the title: a release drowned in noise says so,
// a clear one does not (five communities, so that a clear ranking can
// rise above NoiseRatio times its prior).
func TestPictureNoiseVerdictInTitle(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	for _, c := range []struct {
		eps   string
		noisy bool
	}{{"0.01", true}, {"200", false}} {
		svg := filepath.Join(dir, c.eps+".svg")
		_, stderr, code := runPipelineCLI(t, context.Background(), nil, "demo", "--graph", "sbm:sizes=100x100x100x100x100,pin=0.1,pout=0.003",
			"--tau", "1", "--epsilon", c.eps, "--plot", svg)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := svgtest.Read(t, svg).HasText("noise-dominated"); got != c.noisy {
			t.Errorf("ε = %s: title says noise-dominated %v, want %v", c.eps, got, c.noisy)
		}
	}
}

// Released values are signed: a diverging scale centred at 0 paints
// negative values blue, positive ones red, and labels both ends.
func TestPictureReleasedValuesDiverging(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	svg := filepath.Join(dir, "r.svg")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
		"--tau", "0.2", "--plot", svg, "--plot-value", "released")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := svgtest.Read(t, svg)
	amax := 0.0
	for _, c := range doc.Circles {
		if c.Class == "node" {
			amax = math.Max(amax, math.Abs(nodeValue(t, c.Title)))
		}
	}
	// Near 0 the colours are near white and may round to grey; from a
	// tenth of the largest magnitude on the hue must show the sign.
	neg, pos, wrong := 0, 0, 0
	for _, c := range doc.Circles {
		if c.Class != "node" {
			continue
		}
		v := nodeValue(t, c.Title)
		r, _, b := rgbaOf(t, c.Fill)
		clear := math.Abs(v) >= amax/10
		switch {
		case v < 0:
			neg++
			if b < r || clear && b == r {
				if wrong++; wrong <= 2 {
					t.Errorf("%s coloured %s: a negative value must be blue", c.Title, c.Fill)
				}
			}
		case v > 0:
			pos++
			if r < b || clear && r == b {
				if wrong++; wrong <= 2 {
					t.Errorf("%s coloured %s: a positive value must be red", c.Title, c.Fill)
				}
			}
		}
	}
	if neg == 0 || pos == 0 {
		t.Fatalf("fixture: %d negative and %d positive released values", neg, pos)
	}
	if !doc.HasText("−") && !doc.HasText("-") {
		t.Errorf("no negative label on the colour scale: %q", doc.Texts)
	}
	if !doc.HasText("0") {
		t.Errorf("no 0 at the centre of the scale")
	}
	captionMatchesLegend(t, doc)
}

// A bpdn picture colours by recovered mass: it does not say "posterior"
// or "P(source)", and its scale is not labelled 0 everywhere.
func TestPictureBPDNSaysMass(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	rel := releaseKarate(t, dir)
	svg := filepath.Join(dir, "b.svg")
	_, stderr, code := runPipelineCLI(t, context.Background(), nil, "locate", "--graph", "karate", "--released", rel,
		"--tau", "0.2", "--estimator", "bpdn", "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := svgtest.Read(t, svg)
	zeros, labels := 0, 0
	for _, s := range doc.Texts {
		if strings.Contains(s, "posterior") || strings.Contains(s, "P(source)") || strings.Contains(s, "P(node") {
			t.Errorf("bpdn picture says %q", s)
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			labels++
			if s == "0" {
				zeros++
			}
		}
	}
	if labels > 1 && zeros == labels {
		t.Errorf("every scale label is 0: %q", doc.Texts)
	}
	captionMatchesLegend(t, doc)
}

// experiment graph with two τ and two ε: both τ series are visible (their
// colours both cover pixels of the plot area) and the x axis is labelled
// with the ε swept.
func TestPictureExperimentSeriesVisible(t *testing.T) {
	dir := t.TempDir()
	args := []string{"experiment", "graph", "--tau", "1,2", "--epsilon", "1,4", "--trials", "8", "--seed", "5"}
	pngPath, svgPath := filepath.Join(dir, "e.png"), filepath.Join(dir, "e.svg")
	for _, p := range []string{pngPath, svgPath} {
		if _, code := runExperimentCLI(t, append(args, "--plot", p)...); code != 0 {
			t.Fatalf("--plot %s: exit %d", p, code)
		}
	}
	doc := svgtest.Read(t, svgPath)
	for _, tick := range []string{"1", "4"} {
		ok := false
		for _, s := range doc.Texts {
			ok = ok || s == tick
		}
		if !ok {
			t.Errorf("no x tick %q: %q", tick, doc.Texts)
		}
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The series colours (plotting.Blue, plotting.Red): count pixels near each.
	near := func(r, g, b, R, G, B uint32) bool {
		d := func(x, y uint32) uint32 {
			if x > y {
				return x - y
			}
			return y - x
		}
		return d(r>>8, R)+d(g>>8, G)+d(b>>8, B) < 60
	}
	blue, red := 0, 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r, g, b, 30, 80, 200) {
				blue++
			}
			if near(r, g, b, 200, 30, 30) {
				red++
			}
		}
	}
	if blue < red/3 || red < blue/3 {
		t.Errorf("one τ series hides the other: %d blue pixels, %d red", blue, red)
	}

	// One ε, two τ: x is τ, labelled 1 and 2.
	if _, code := runExperimentCLI(t, "experiment", "graph", "--tau", "1,2", "--trials", "4", "--plot", svgPath); code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc = svgtest.Read(t, svgPath)
	for _, tick := range []string{"1", "2"} {
		ok := false
		for _, s := range doc.Texts {
			ok = ok || s == tick
		}
		if !ok {
			t.Errorf("τ axis without tick %q: %q", tick, doc.Texts)
		}
	}
}
