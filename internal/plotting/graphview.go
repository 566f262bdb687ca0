package plotting

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
)

// GraphView is what a graph picture shows: the graph's edges, a partition
// into communities with a probability each, a value per node to colour by
// (the posterior probability of being the source, or the released value),
// the true source when it is known (simulations), and a caption with the
// privacy parameters.
type GraphView struct {
	Title   string
	Caption string
	// N nodes; Keys name them (tooltips in SVG). Edges are pairs of node
	// indices with a weight.
	N     int
	Keys  []string
	Edges []ViewEdge
	// Part assigns each node a community index 0..len(Communities)−1.
	Part        []int
	Communities []ViewCommunity
	// Value colours the nodes; ValueLabel names it in the legend.
	Value      []float64
	ValueLabel string
	// Source is the true source node, or −1.
	Source int
	// MaxNodes is the most nodes drawn one by one; above it the community
	// graph is drawn instead. Default 5000.
	MaxNodes int
}

// ViewEdge is an edge of a GraphView.
type ViewEdge struct {
	U, V int
	W    float64
}

// ViewCommunity is a community of a GraphView with its probability of
// holding the source.
type ViewCommunity struct {
	Name        string
	Probability float64
}

// scene is a picture in page coordinates (points, y up), drawn by both
// the SVG writer and the raster renderer.
type scene struct {
	w, h   float64
	lines  []sceneLine
	discs  []sceneDisc
	texts  []sceneText
	legend []sceneDisc // colour-bar swatches
}

type sceneLine struct {
	x1, y1, x2, y2, width float64
	c                     color.NRGBA // not premultiplied: A is the opacity
}

type sceneDisc struct {
	x, y, r     float64
	fill        color.NRGBA
	stroke      color.NRGBA
	strokeWidth float64
	class       string // "node", "community", "source", "swatch"
	title       string
}

type sceneText struct {
	x, y   float64
	size   float64
	text   string
	anchor string // "start", "middle", "end"
	bold   bool
}

// heat maps t ∈ [0, 1] to a white → yellow → orange → dark red ramp.
func heat(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	stops := []color.NRGBA{{255, 255, 240, 255}, {254, 217, 118, 255}, {253, 141, 60, 255}, {227, 26, 28, 255}, {128, 0, 38, 255}}
	x := t * float64(len(stops)-1)
	i := min(int(x), len(stops)-2)
	f := x - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + f*(float64(q)-float64(p)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// categorical colours for community outlines.
var categorical = []color.NRGBA{
	{31, 119, 180, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}, {23, 190, 207, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255},
}

// communityCentres lays out the community graph (k discs of radius r[c],
// pair weights w) by a small deterministic force-directed layout:
// communities start on a circle in order, attract in proportion to the
// weight between them and repel when their discs come close.
func communityCentres(k int, r []float64, w map[[2]int]float64) [][2]float64 {
	pos := make([][2]float64, k)
	total := 0.0
	for _, x := range r {
		total += 2 * x
	}
	R := math.Max(total/(2*math.Pi), r[0]) * 1.2
	for c := range pos {
		a := 2 * math.Pi * float64(c) / float64(k)
		pos[c] = [2]float64{R * math.Cos(a), R * math.Sin(a)}
	}
	if k == 1 {
		pos[0] = [2]float64{}
		return pos
	}
	maxW := 0.0
	for _, x := range w {
		maxW = math.Max(maxW, x)
	}
	for it := 0; it < 300; it++ {
		step := R * 0.05 * (1 - float64(it)/300)
		force := make([][2]float64, k)
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				dx, dy := pos[b][0]-pos[a][0], pos[b][1]-pos[a][1]
				d := math.Max(math.Hypot(dx, dy), 1e-9)
				gap := d - (r[a]+r[b])*1.15
				f := 0.0
				if gap < 0 {
					f = gap // overlap: push apart
				} else if maxW > 0 {
					f = 0.5 * gap * w[[2]int{a, b}] / maxW // linked: pull together
				}
				force[a][0] += f * dx / d
				force[a][1] += f * dy / d
				force[b][0] -= f * dx / d
				force[b][1] -= f * dy / d
			}
			// A weak pull to the origin keeps unlinked communities near.
			force[a][0] -= 0.01 * pos[a][0]
			force[a][1] -= 0.01 * pos[a][1]
		}
		for a := range pos {
			fx, fy := force[a][0], force[a][1]
			if n := math.Hypot(fx, fy); n > step {
				fx, fy = fx*step/n, fy*step/n
			}
			pos[a][0] += fx
			pos[a][1] += fy
		}
	}
	separate(pos, r)
	return pos
}

// separate pushes overlapping discs apart until none overlap (or 500
// sweeps pass), each pair moving by half its overlap.
func separate(pos [][2]float64, r []float64) {
	for sweep := 0; sweep < 500; sweep++ {
		moved := false
		for a := range pos {
			for b := a + 1; b < len(pos); b++ {
				dx, dy := pos[b][0]-pos[a][0], pos[b][1]-pos[a][1]
				d := math.Hypot(dx, dy)
				need := (r[a] + r[b]) * 1.08
				if d >= need {
					continue
				}
				if d < 1e-9 {
					dx, dy, d = 1, 0, 1
				}
				push := (need - d) / 2
				pos[a][0] -= push * dx / d
				pos[a][1] -= push * dy / d
				pos[b][0] += push * dx / d
				pos[b][1] += push * dy / d
				moved = true
			}
		}
		if !moved {
			return
		}
	}
}

const goldenAngle = 2.399963229728653 // π(3 − √5)

// buildScene lays out v: one disc per community (area ∝ size), its nodes
// on a sunflower spiral inside it with the highest values at the centre;
// or, above MaxNodes, the community graph alone.
func buildScene(v GraphView) (*scene, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	k := len(v.Communities)
	size := make([]int, k)
	for _, c := range v.Part {
		size[c]++
	}
	members := make([][]int, k)
	for i, c := range v.Part {
		members[c] = append(members[c], i)
	}
	maxNodes := v.MaxNodes
	if maxNodes <= 0 {
		maxNodes = 5000
	}
	perNode := v.N <= maxNodes
	const spacing = 1.0 // distance between neighbouring nodes on a spiral
	r := make([]float64, k)
	for c := range r {
		r[c] = spacing*math.Sqrt(float64(max(size[c], 1)))*0.62 + 0.8
	}
	between := map[[2]int]float64{}
	for _, e := range v.Edges {
		a, b := v.Part[e.U], v.Part[e.V]
		if a != b {
			between[[2]int{min(a, b), max(a, b)}] += e.W
		}
	}
	centre := communityCentres(k, r, between)

	// Page geometry: fit the layout into a square plot area.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for c := range centre {
		minX, maxX = math.Min(minX, centre[c][0]-r[c]), math.Max(maxX, centre[c][0]+r[c])
		minY, maxY = math.Min(minY, centre[c][1]-r[c]), math.Max(maxY, centre[c][1]+r[c])
	}
	const side, margin, legendW, top, bottom = 520.0, 20.0, 110.0, 40.0, 50.0
	scale := side / math.Max(maxX-minX, maxY-minY)
	offX, offY := (side-(maxX-minX)*scale)/2, (side-(maxY-minY)*scale)/2
	s := &scene{w: side + 2*margin + legendW, h: side + top + bottom}
	px := func(x float64) float64 { return margin + offX + (x-minX)*scale }
	py := func(y float64) float64 { return bottom + offY + (y-minY)*scale }

	vmax := 0.0
	for _, x := range v.Value {
		if !math.IsNaN(x) {
			vmax = math.Max(vmax, math.Abs(x))
		}
	}
	colourOf := func(x float64) color.NRGBA {
		if vmax == 0 || math.IsNaN(x) {
			return heat(0)
		}
		return heat(x / vmax)
	}

	// Inter-community edges, width by weight.
	maxB := 0.0
	for _, w := range between {
		maxB = math.Max(maxB, w)
	}
	pairs := make([][2]int, 0, len(between))
	for p := range between {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, p := range pairs {
		a, b := centre[p[0]], centre[p[1]]
		dx, dy := b[0]-a[0], b[1]-a[1]
		d := math.Max(math.Hypot(dx, dy), 1e-9)
		ux, uy := dx/d, dy/d
		wd := 0.5 + 5*between[p]/maxB
		s.lines = append(s.lines, sceneLine{px(a[0] + ux*r[p[0]]), py(a[1] + uy*r[p[0]]), px(b[0] - ux*r[p[1]]), py(b[1] - uy*r[p[1]]),
			wd, color.NRGBA{120, 120, 120, 200}})
	}
	// Community discs (outline in the community's colour), labelled with
	// the probability.
	order := make([]int, k)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(v.Communities[b].Probability, v.Communities[a].Probability) })
	rank := make([]int, k)
	for i, c := range order {
		rank[c] = i
	}
	for c := 0; c < k; c++ {
		cc := categorical[c%len(categorical)]
		fill := color.NRGBA{cc.R, cc.G, cc.B, 28}
		if !perNode {
			fill = heat(v.Communities[c].Probability)
		}
		title := fmt.Sprintf("community %s: %d nodes, probability %.3f", v.Communities[c].Name, size[c], v.Communities[c].Probability)
		s.discs = append(s.discs, sceneDisc{px(centre[c][0]), py(centre[c][1]), r[c] * scale, fill, cc, 2, "community", title})
		if rank[c] < 12 || k <= 12 {
			label := fmt.Sprintf("%s: %.0f%%", v.Communities[c].Name, 100*v.Communities[c].Probability)
			s.texts = append(s.texts, sceneText{px(centre[c][0]), py(centre[c][1]+r[c]) + 4, 10, label, "middle", rank[c] == 0})
		}
	}
	// Nodes on a sunflower spiral, highest value at the centre.
	if perNode {
		nodeR := math.Max(0.33*spacing*scale, 1.2)
		for c := 0; c < k; c++ {
			m := members[c]
			slices.SortStableFunc(m, func(a, b int) int { return cmp.Compare(v.Value[b], v.Value[a]) })
			for j, i := range m {
				rr := (r[c] - 0.6) * math.Sqrt((float64(j)+0.5)/float64(len(m)))
				a := float64(j) * goldenAngle
				x, y := px(centre[c][0]+rr*math.Cos(a)), py(centre[c][1]+rr*math.Sin(a))
				title := fmt.Sprintf("node %s: %s %.4g", v.key(i), v.ValueLabel, v.Value[i])
				s.discs = append(s.discs, sceneDisc{x, y, nodeR, colourOf(v.Value[i]), color.NRGBA{90, 90, 90, 255}, 0.3, "node", title})
				if i == v.Source {
					s.discs = append(s.discs, sceneDisc{x, y, nodeR + 3, color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, 2, "source", "true source: node " + v.key(i)})
				}
			}
		}
	}
	s.addLegend(v, perNode, vmax, side+2*margin, bottom, side)
	s.texts = append(s.texts,
		sceneText{s.w / 2, s.h - 24, 14, v.Title, "middle", true},
		sceneText{s.w / 2, 18, 10, v.Caption, "middle", false})
	return s, nil
}

// addLegend draws the colour bar and the marker key at x, between y0 and
// y0+h.
func (s *scene) addLegend(v GraphView, perNode bool, vmax float64, x, y0, h float64) {
	label, hi := v.ValueLabel, vmax
	if !perNode {
		label, hi = "community probability", 1
	}
	s.texts = append(s.texts, sceneText{x, y0 + h - 4, 10, label, "start", true})
	const steps = 10
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		y := y0 + h - 30 - float64(steps-i)*16
		s.legend = append(s.legend, sceneDisc{x + 8, y, 6, heat(t), color.NRGBA{90, 90, 90, 255}, 0.3, "swatch", ""})
		if i%5 == 0 {
			s.texts = append(s.texts, sceneText{x + 20, y - 3, 9, fmt.Sprintf("%.3g", t*hi), "start", false})
		}
	}
	y := y0 + h - 30 - steps*16 - 30
	s.legend = append(s.legend, sceneDisc{x + 8, y, 6, color.NRGBA{}, categorical[0], 2, "swatch", ""})
	s.texts = append(s.texts, sceneText{x + 20, y - 3, 9, "community", "start", false})
	if v.Source >= 0 && perNode {
		y -= 20
		s.legend = append(s.legend, sceneDisc{x + 8, y, 6, color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, 2, "swatch", ""})
		s.texts = append(s.texts, sceneText{x + 20, y - 3, 9, "true source", "start", false})
	}
	if !perNode {
		y -= 20
		s.texts = append(s.texts, sceneText{x, y - 3, 9, fmt.Sprintf("%d nodes: one disc", v.N), "start", false},
			sceneText{x, y - 15, 9, "per community", "start", false})
	}
}

func (v GraphView) key(i int) string {
	if v.Keys != nil {
		return v.Keys[i]
	}
	return fmt.Sprint(i)
}

func (v GraphView) check() error {
	switch {
	case v.N <= 0:
		return fmt.Errorf("plotting: graph view of an empty graph")
	case len(v.Part) != v.N || len(v.Value) != v.N:
		return fmt.Errorf("plotting: graph view needs a community and a value for each of %d nodes", v.N)
	case v.Keys != nil && len(v.Keys) != v.N:
		return fmt.Errorf("plotting: %d keys for %d nodes", len(v.Keys), v.N)
	case len(v.Communities) == 0:
		return fmt.Errorf("plotting: graph view without communities")
	}
	for _, c := range v.Part {
		if c < 0 || c >= len(v.Communities) {
			return fmt.Errorf("plotting: community %d out of range [0, %d)", c, len(v.Communities))
		}
	}
	for _, e := range v.Edges {
		if e.U < 0 || e.U >= v.N || e.V < 0 || e.V >= v.N {
			return fmt.Errorf("plotting: edge (%d, %d) out of range", e.U, e.V)
		}
	}
	return nil
}
