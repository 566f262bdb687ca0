package plotting

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// GraphView is what a graph picture shows: the graph's edges, a partition
// into communities with a probability each, a value per node to colour by
// (the posterior probability of being the source, a recovered mass or the
// released value), the true source when it is known (simulations), and a
// caption with the privacy parameters. The legend, and the caption's
// account of colours and marks, are generated from what is drawn.
type GraphView struct {
	Title string
	// Verdict, when not empty, is drawn under the title in red (the noise
	// verdict: "noise-dominated: …").
	Verdict string
	Caption string
	// N nodes; Keys name them (tooltips in SVG). Edges are pairs of node
	// indices with a weight.
	N     int
	Keys  []string
	Edges []ViewEdge
	// Part assigns each node a community index 0..len(Communities)−1.
	Part        []int
	Communities []ViewCommunity
	// CommunityLabel names what a community's probability is (default
	// "P(community holds the source)"); it titles the legend of the
	// community graph.
	CommunityLabel string
	// Value colours the nodes; Kind says what it is and picks the scale;
	// ValueLabel names it in the legend (Mass, Signed).
	Value      []float64
	Kind       ValueKind
	ValueLabel string
	// Source is the true source node, or −1.
	Source int
	// MaxNodes is the most nodes drawn one by one; above it the community
	// graph is drawn instead. Default 5000.
	MaxNodes int
}

// ValueKind is what a GraphView's node values are.
type ValueKind int

const (
	// Posterior values are probabilities of being the source, coloured
	// against the uniform prior 1/N: a node no more likely than the prior
	// gets the lightest colour.
	Posterior ValueKind = iota
	// Mass values are non-negative (a recovered source mass), coloured
	// from 0 to their largest.
	Mass
	// Signed values (released readings) are coloured on a diverging scale
	// centred at 0: blue below, red above.
	Signed
)

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
	colour color.NRGBA // zero: black
}

func newText(x, y, size float64, text, anchor string, bold bool) sceneText {
	return sceneText{x: x, y: y, size: size, text: text, anchor: anchor, bold: bold}
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

// diverging maps t ∈ [−1, 1] to blue → near-white (at 0) → red.
func diverging(t float64) color.NRGBA {
	t = math.Max(-1, math.Min(1, t))
	stops := []color.NRGBA{{33, 102, 172, 255}, {146, 197, 222, 255}, {247, 247, 247, 255}, {244, 165, 130, 255}, {178, 24, 43, 255}}
	x := (t + 1) / 2 * float64(len(stops)-1)
	i := min(int(x), len(stops)-2)
	f := x - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + f*(float64(q)-float64(p)))) }
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// colourScale maps values to colours and says how in the legend.
type colourScale struct {
	label   string // the legend's title, quoted by the caption
	colour  func(x float64) color.NRGBA
	lo, hi  float64 // the legend's range; lo == hi: one swatch
	loLabel string  // the bottom label, when it is not just the number
}

// nodeScale is the colour scale of v's node values.
func nodeScale(v GraphView) colourScale {
	vmax, amax := math.Inf(-1), 0.0
	for _, x := range v.Value {
		if !math.IsNaN(x) {
			vmax, amax = math.Max(vmax, x), math.Max(amax, math.Abs(x))
		}
	}
	label := v.ValueLabel
	switch v.Kind {
	case Signed:
		if label == "" {
			label = "value"
		}
		return colourScale{label: label, lo: -amax, hi: amax, colour: func(x float64) color.NRGBA {
			if amax == 0 || math.IsNaN(x) {
				return diverging(0)
			}
			return diverging(x / amax)
		}}
	case Mass:
		if label == "" {
			label = "recovered source mass"
		}
		hi := math.Max(vmax, 0)
		return colourScale{label: label, lo: 0, hi: hi, colour: func(x float64) color.NRGBA {
			if hi == 0 || math.IsNaN(x) {
				return heat(0)
			}
			return heat(x / hi)
		}}
	}
	// Posterior: from the uniform prior; the darkest colour needs at least
	// twice the prior, so values near the prior stay pale.
	prior := 1 / float64(v.N)
	hi := math.Max(vmax, 2*prior)
	return colourScale{label: "P(node is the source)", lo: prior, hi: hi,
		loLabel: fmt.Sprintf("%.3g = 1/n (prior)", prior),
		colour: func(x float64) color.NRGBA {
			if math.IsNaN(x) {
				return heat(0)
			}
			return heat((x - prior) / (hi - prior))
		}}
}

// communityScale colours a community by its probability, on [0, 1].
func communityScale(v GraphView) colourScale {
	label := v.CommunityLabel
	if label == "" {
		label = "P(community holds the source)"
	}
	return colourScale{label: label, lo: 0, hi: 1, colour: heat}
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
	const side, margin, legendW, top, bottom = 520.0, 20.0, 150.0, 66.0, 50.0
	zoom := side / math.Max(maxX-minX, maxY-minY)
	offX, offY := (side-(maxX-minX)*zoom)/2, (side-(maxY-minY)*zoom)/2
	s := &scene{w: side + 2*margin + legendW, h: side + top + bottom}
	px := func(x float64) float64 { return margin + offX + (x-minX)*zoom }
	py := func(y float64) float64 { return bottom + offY + (y-minY)*zoom }

	scale := nodeScale(v)
	if !perNode {
		scale = communityScale(v)
	}
	source := -1
	if v.Source >= 0 && v.Source < v.N {
		source = v.Source
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
			fill = scale.colour(v.Communities[c].Probability)
		}
		title := fmt.Sprintf("community %s: %d nodes, probability %.3f", v.Communities[c].Name, size[c], v.Communities[c].Probability)
		s.discs = append(s.discs, sceneDisc{px(centre[c][0]), py(centre[c][1]), r[c] * zoom, fill, cc, 2, "community", title})
		if !perNode && source >= 0 && v.Part[source] == c {
			s.discs = append(s.discs, sceneDisc{px(centre[c][0]), py(centre[c][1]), r[c]*zoom + 4, color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, 3,
				"source", "true source: node " + v.key(source) + ", in community " + v.Communities[c].Name})
		}
		if rank[c] < 12 || k <= 12 {
			label := fmt.Sprintf("%s: %.0f%%", v.Communities[c].Name, 100*v.Communities[c].Probability)
			s.texts = append(s.texts, newText(px(centre[c][0]), py(centre[c][1]+r[c])+8, 10, label, "middle", rank[c] == 0))
		}
	}
	// Nodes on a sunflower spiral, highest value at the centre.
	if perNode {
		nodeR := math.Max(0.33*spacing*zoom, 1.2)
		for c := 0; c < k; c++ {
			m := members[c]
			slices.SortStableFunc(m, func(a, b int) int { return cmp.Compare(v.Value[b], v.Value[a]) })
			for j, i := range m {
				rr := (r[c] - 0.6) * math.Sqrt((float64(j)+0.5)/float64(len(m)))
				a := float64(j) * goldenAngle
				x, y := px(centre[c][0]+rr*math.Cos(a)), py(centre[c][1]+rr*math.Sin(a))
				title := fmt.Sprintf("node %s: %s %.4g", v.key(i), scale.label, v.Value[i])
				s.discs = append(s.discs, sceneDisc{x, y, nodeR, scale.colour(v.Value[i]), color.NRGBA{90, 90, 90, 255}, 0.3, "node", title})
				if i == source {
					s.discs = append(s.discs, sceneDisc{x, y, nodeR + 3, color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, 2, "source", "true source: node " + v.key(i)})
				}
			}
		}
	}
	ring := s.addLegend(v, scale, perNode, source >= 0, side+2*margin, bottom, side)
	caption := v.Caption
	if caption != "" {
		caption += " · "
	}
	caption += "colour: " + scale.label
	if ring != "" {
		caption += " · black ring: " + ring
	}
	s.fitLegend()
	s.addHeadAndCaption(v.Title, v.Verdict, caption, margin, bottom, top)
	return s, nil
}

// Line heights of the title, the verdict and the caption (points).
const titleSize, titleLead, verdictSize, verdictLead, captionSize, captionLead = 14.0, 17.0, 12.0, 15.0, 10.0, 13.0

// addHeadAndCaption writes the title and the verdict (red) above the
// drawing and the caption below it, each wrapped to the picture's width
// less margin on either side (the caption between its " · " parts where it
// can), and makes room for their lines: the picture grows at the top, and
// at the bottom, by what they need beyond top and bottom points.
func (s *scene) addHeadAndCaption(title, verdict, caption string, margin, bottom, top float64) {
	maxW := s.w - 2*margin
	tl, ts := fitText(title, titleSize, true, maxW, " ")
	vl, vs := fitText(verdict, verdictSize, true, maxW, " ")
	cl, cs := fitText(caption, captionSize, false, maxW, " · ")
	// The head: the first title line's baseline 24 points below the top,
	// the verdict 20 below the title's last line; 18 points under it.
	head := 24 + float64(max(len(tl)-1, 0))*titleLead
	if len(vl) > 0 {
		head += 20 + float64(len(vl)-1)*verdictLead
	}
	s.h += math.Max(0, head+18-top)
	// The foot: the caption's last baseline 18 points above the bottom.
	foot := 18 + float64(max(len(cl)-1, 0))*captionLead + captionSize + 8
	if extra := foot - bottom; extra > 0 {
		s.shift(extra)
	}
	y := s.h - 24
	for _, l := range tl {
		s.texts = append(s.texts, newText(s.w/2, y, ts, l, "middle", true))
		y -= titleLead
	}
	y += titleLead - 20
	for _, l := range vl {
		t := newText(s.w/2, y, vs, l, "middle", true)
		t.colour = color.NRGBA{178, 24, 43, 255}
		s.texts = append(s.texts, t)
		y -= verdictLead
	}
	for i, l := range cl {
		s.texts = append(s.texts, newText(s.w/2, 18+float64(len(cl)-1-i)*captionLead, cs, l, "middle", false))
	}
}

// shift moves everything drawn up by dy points and makes the picture as
// much taller.
func (s *scene) shift(dy float64) {
	for i := range s.lines {
		s.lines[i].y1 += dy
		s.lines[i].y2 += dy
	}
	for i := range s.discs {
		s.discs[i].y += dy
	}
	for i := range s.legend {
		s.legend[i].y += dy
	}
	for i := range s.texts {
		s.texts[i].y += dy
	}
	s.h += dy
}

// fitLegend shrinks a left-aligned text (the legend's) that would run
// past the picture's right edge until it fits.
func (s *scene) fitLegend() {
	for i, t := range s.texts {
		if t.anchor != "start" {
			continue
		}
		if w := textWidth(t.text, t.size, t.bold); t.x+w > s.w-4 && w > 0 {
			s.texts[i].size = math.Max(5, t.size*(s.w-4-t.x)/w)
		}
	}
}

// textFont is the face a picture's text is drawn in (PNG, PDF) and
// measured with: Liberation Sans, metric-compatible with the sans-serif
// the SVG names.
func textFont(size float64, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Length(size)}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

// textWidth is the width of text in points, with a tenth to spare for a
// browser's sans-serif wider than Liberation Sans.
func textWidth(text string, size float64, bold bool) float64 {
	w, _, _ := plot.DefaultTextHandler.Box(text, textFont(size, bold))
	return 1.1 * float64(w)
}

// fitText breaks text into lines no wider than maxW at size: parts
// between sep packed greedily, a part too wide alone broken between
// words; when one word is wider than maxW, the size shrinks until it
// fits. It returns the lines and the size ("" gives none).
func fitText(text string, size float64, bold bool, maxW float64, sep string) ([]string, float64) {
	if strings.TrimSpace(text) == "" {
		return nil, size
	}
	for _, w := range strings.Fields(text) {
		if ww := textWidth(w, size, bold); ww > maxW {
			size = math.Max(5, size*maxW/ww)
		}
	}
	var lines []string
	pack := func(parts []string, joint string) {
		cur := ""
		for _, p := range parts {
			switch {
			case cur == "":
				cur = p
			case textWidth(cur+joint+p, size, bold) <= maxW:
				cur += joint + p
			default:
				lines = append(lines, cur)
				cur = p
			}
		}
		if cur != "" {
			lines = append(lines, cur)
		}
	}
	var parts []string
	for _, p := range strings.Split(text, sep) {
		if textWidth(p, size, bold) <= maxW {
			parts = append(parts, p)
			continue
		}
		// Too wide alone: its own lines, broken between words.
		if len(parts) > 0 {
			pack(parts, sep)
			parts = nil
		}
		pack(strings.Fields(p), " ")
	}
	pack(parts, sep)
	return lines, size
}

// addLegend draws the colour scale and the marker key at x, between y0
// and y0+h, and returns what the black ring marks ("" when none is drawn).
func (s *scene) addLegend(v GraphView, scale colourScale, perNode, hasSource bool, x, y0, h float64) (ring string) {
	s.texts = append(s.texts, newText(x, y0+h-4, 10, scale.label, "start", true))
	const steps = 10
	n := steps
	if scale.hi == scale.lo {
		n = 0 // one colour for every value
	}
	for i := 0; i <= n; i++ {
		val := scale.lo
		if n > 0 {
			val = scale.lo + (scale.hi-scale.lo)*float64(i)/steps
		}
		y := y0 + h - 30 - float64(n-i)*16
		s.legend = append(s.legend, sceneDisc{x + 8, y, 6, scale.colour(val), color.NRGBA{90, 90, 90, 255}, 0.3, "swatch", ""})
		label := ""
		switch {
		case n == 0:
			label = "all " + number(val)
		case i == 0 && scale.loLabel != "":
			label = scale.loLabel
		case i%5 == 0:
			label = number(val)
		}
		if label != "" {
			s.texts = append(s.texts, newText(x+20, y-3, 9, label, "start", false))
		}
	}
	y := y0 + h - 30 - float64(n)*16 - 30
	s.legend = append(s.legend, sceneDisc{x + 8, y, 6, color.NRGBA{}, categorical[0], 2, "swatch", ""})
	s.texts = append(s.texts, newText(x+20, y-3, 9, "community", "start", false))
	if hasSource {
		ring = "true source"
		if !perNode {
			ring = "community of the true source"
		}
		y -= 20
		s.legend = append(s.legend, sceneDisc{x + 8, y, 6, color.NRGBA{}, color.NRGBA{0, 0, 0, 255}, 2, "swatch", ""})
		s.texts = append(s.texts, newText(x+20, y-3, 9, ring, "start", false))
	}
	if !perNode {
		y -= 20
		s.texts = append(s.texts, newText(x, y-3, 9, fmt.Sprintf("%d nodes: one disc", v.N), "start", false),
			newText(x, y-15, 9, "per community", "start", false))
	}
	return ring
}

// number formats a legend value with a true minus sign.
func number(x float64) string {
	if x == 0 {
		return "0" // not −0
	}
	return strings.Replace(fmt.Sprintf("%.3g", x), "-", "−", 1)
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
