package plotting

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ringView is a ring of n nodes split into k equal communities.
func ringView(n, k int) GraphView {
	v := GraphView{N: n, Source: 3, ValueLabel: "P(source)", Title: "t", Caption: "ε = 1"}
	for i := 0; i < n; i++ {
		v.Edges = append(v.Edges, ViewEdge{U: i, V: (i + 1) % n, W: 1})
		v.Part = append(v.Part, i*k/n)
		v.Value = append(v.Value, float64(i%7)/7)
	}
	for c := 0; c < k; c++ {
		v.Communities = append(v.Communities, ViewCommunity{Name: string(rune('A' + c)), Probability: 1 / float64(k)})
	}
	return v
}

// svgClasses counts the circles of each class in an SVG document.
func svgClasses(t *testing.T, data []byte) map[string]int {
	t.Helper()
	count := map[string]int{}
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return count
		}
		if err != nil {
			t.Fatalf("invalid SVG: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "circle" {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					count[a.Value]++
				}
			}
		}
	}
}

func TestGraphPictureSVGStructure(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		n, k, maxNodes          int
		nodes, comms, sourceRng int
	}{
		{60, 3, 0, 60, 3, 1}, // drawn node by node
		{60, 4, 50, 0, 4, 1}, // above MaxNodes: the community graph, the source's community ringed
		{1, 1, 0, 1, 1, 0},   // a single node (source 3 does not exist)
		{500, 7, 0, 500, 7, 1},
	}
	for _, c := range cases {
		v := ringView(c.n, c.k)
		v.MaxNodes = c.maxNodes
		path := filepath.Join(dir, "g.svg")
		if err := GraphPicture(path, v); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := svgClasses(t, data)
		if got["node"] != c.nodes || got["community"] != c.comms || got["source"] != c.sourceRng {
			t.Errorf("n=%d k=%d max=%d: %v, want %d nodes, %d communities, %d source rings", c.n, c.k, c.maxNodes, got, c.nodes, c.comms, c.sourceRng)
		}
		if !strings.Contains(string(data), "ε = 1") {
			t.Error("caption missing")
		}
	}
}

func TestGraphPictureFormatsAndRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".png", ".pdf", ".svg"} {
		path := filepath.Join(dir, "g"+ext)
		if err := GraphPicture(path, ringView(40, 2)); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", ext, st, err)
		}
	}
	bad := ringView(10, 2)
	bad.Part[0] = 5
	for name, c := range map[string]struct {
		path string
		v    GraphView
	}{
		"gif":       {filepath.Join(dir, "x.gif"), ringView(10, 2)},
		"partition": {filepath.Join(dir, "bad.png"), bad},
		"no dir":    {filepath.Join(dir, "missing", "x.png"), ringView(10, 2)},
	} {
		if err := GraphPicture(c.path, c.v); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(c.path); !os.IsNotExist(err) {
			t.Errorf("%s: left %s behind", name, c.path)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".plot-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// heat is a monotone ramp: darker (lower luminance) for larger values.
func TestHeatMonotone(t *testing.T) {
	lum := func(x float64) float64 {
		c := heat(x)
		return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
	}
	prev := lum(0)
	for i := 1; i <= 100; i++ {
		l := lum(float64(i) / 100)
		if l > prev+1e-9 {
			t.Fatalf("luminance rises at %.2f: %.1f > %.1f", float64(i)/100, l, prev)
		}
		prev = l
	}
}

func TestTopCommunityHistory(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var pts []HistoryPoint
	for h := 0; h < 24; h++ {
		c := "7"
		if h >= 15 {
			c = "3"
		}
		pts = append(pts, HistoryPoint{At: t0.Add(time.Duration(h) * time.Hour), Community: c, Probability: 0.4 + 0.02*float64(h%10)})
	}
	svg := filepath.Join(dir, "h.svg")
	if err := TopCommunityHistory(svg, "history", pts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(data), "community 7") || !strings.Contains(string(data), "community 3") {
		t.Errorf("legend does not name both communities: %v", err)
	}
	if err := TopCommunityHistory(filepath.Join(dir, "h.gif"), "x", pts); err == nil {
		t.Error("gif accepted")
	}
	if err := TopCommunityHistory(filepath.Join(dir, "e.png"), "x", nil); err == nil {
		t.Error("empty history accepted")
	}
}
