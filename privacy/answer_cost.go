package privacy

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/graphcloak/graphcloak/laplacian"
)

// CalibrationSeconds models CalibrateAnswer (the cap chosen, α = 1) on g
// with the partition part at each of epsilons (ε = 2 where none is
// given): seconds on the 2-core reference machine, their sum. The work
// of each (calibrationWork: the envelope's spreads, the caps' loss
// checks, the exponent store's cells) at its rate; the spreads and the
// store run on both cores, the loss checks on one.
func CalibrationSeconds(g *laplacian.Graph, part []int, epsilons ...float64) float64 {
	if len(epsilons) == 0 {
		epsilons = []float64{2}
	}
	sh := newCalibrationShape(g, part)
	total := 0.0
	for _, eps := range epsilons {
		w := sh.work(eps)
		total += (w.Spread*spreadNanos/2 + w.Loss*lossNanos + w.Cells*cellNanos/2) * 1e-9
	}
	return total
}

// The calibration's rates, CPU nanoseconds a unit: a spread's node or edge
// (LFR 2·10⁴, 127 communities, where the model counts what the spreads do
// within 8%: 49 s idle for plan's 5 ε), a loss check's edge or histogram
// entry and a store cell (their shares of a CPU profile of astro-ph's
// calibration at ε = 2 beside the spreads': 8.6 and 2.5 ns against 9.8).
const (
	spreadNanos = 9
	lossNanos   = 8
	cellNanos   = 2.3
)

// calibrationWork counts what one CalibrateAnswer at ε (α = 1) does on a
// graph and partition, as the model of CalibrationSeconds prices it:
//
//   - Spread: nodes settled plus edges scanned by the envelope's
//     community spreads (envelopeSweep.spread), summed over every
//     proposal's sweeps: the start weights, the sparse ladder (the m
//     largest communities answered, m = 1, 2, 4, … while that gains), and
//     the optimised proposal (the start's where n·k ≤
//     envelopeOptimizeMaxWork, else the best of the ladder's, with the
//     sweeps calibrateEnvelope gives it). A spread reaches the nodes
//     within floor/ε′ hops of its community: the hop spread of the graph,
//     not its component, bounds it where ε′ is large.
//   - Loss: the geometric caps' exact loss checks (calibrateCap): one
//     pass over every edge and node per bisection step, for every cap up
//     to the largest distance to a community.
//   - Cells: node × community cells the exponent store of each proposal
//     allocates and reads.
//
// The spreads' reach, the ladder's length and the best proposal's size
// depend on the hop distances from nodes to communities: the model reads
// them from calibrationSamples breadth-first searches, not from the
// k spreads themselves.
type calibrationWork struct {
	Spread, Loss, Cells float64
}

// calibrationSamples is how many nodes' distances to every community the
// model reads (one breadth-first search each: 64·(n + 2|E|) steps).
const calibrationSamples = 64

// calibrationShape is what the model reads of a graph and partition.
type calibrationShape struct {
	n, k    int
	edges2  float64
	order   []int     // communities by size, largest first (ties by id): sparse's order
	comm    []int     // the community of each sample node
	deg     []float64 // the degree of each sample node
	dist    [][]int32 // hops from each sample node to every community (−1: unreachable)
	maxDist int       // the largest distance seen, truncated as maxDistance does
}

func newCalibrationShape(g *laplacian.Graph, part []int) *calibrationShape {
	n := g.N()
	k := 0
	for _, c := range part {
		k = max(k, c+1)
	}
	sh := &calibrationShape{n: n, k: k, edges2: 2 * float64(g.NumEdges())}
	size := make([]int, k)
	for _, c := range part {
		size[c]++
	}
	sh.order = make([]int, 0, k)
	for o, s := range size {
		if s > 0 {
			sh.order = append(sh.order, o)
		}
	}
	slices.SortStableFunc(sh.order, func(x, y int) int { return cmp.Compare(size[y], size[x]) })
	rowPtr, col, _ := g.CSR()
	hops := make([]int32, n)
	queue := make([]int32, 0, n)
	for j := range min(n, calibrationSamples) {
		s := int32(j * n / min(n, calibrationSamples))
		d := make([]int32, k)
		for o := range d {
			d[o] = -1
		}
		for i := range hops {
			hops[i] = -1
		}
		hops[s], queue = 0, append(queue[:0], s)
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			if c := part[u]; d[c] < 0 {
				d[c] = hops[u]
				sh.maxDist = max(sh.maxDist, min(int(hops[u]), MaxAnswerCap))
			}
			for _, v := range col[rowPtr[u]:rowPtr[u+1]] {
				if hops[v] < 0 {
					hops[v] = hops[u] + 1
					queue = append(queue, v)
				}
			}
		}
		if slices.Contains(d, -1) { // truncated: unreachable is MaxAnswerCap away
			sh.maxDist = MaxAnswerCap
		}
		sh.comm = append(sh.comm, part[s])
		sh.deg = append(sh.deg, float64(rowPtr[s+1]-rowPtr[s]))
		sh.dist = append(sh.dist, d)
	}
	return sh
}

// countCalibrationWork is calibrationWork for CalibrateAnswer(ε, α = 1)
// on g with the partition part.
func countCalibrationWork(g *laplacian.Graph, part []int, epsilon float64) calibrationWork {
	return newCalibrationShape(g, part).work(epsilon)
}

// work is countCalibrationWork from the shape.
func (sh *calibrationShape) work(epsilon float64) calibrationWork {
	if sh.n == 0 || sh.k == 0 {
		return calibrationWork{}
	}
	w := calibrationWork{Loss: sh.lossWork(epsilon)}
	e := math.Floor(epsilon*gridOne) - 4
	if e <= 0 || sh.k > maxEnvelopeCommunities {
		return w
	}
	eps := e / gridOne
	top := max(-math.Expm1(-eps), 1-envelopeAbstainMin)
	floor := math.Ceil(math.Log(10*float64(sh.k)/(1-top))*gridOne) / gridOne
	sweep := sh.sweepWork(eps, floor) // per community, its spread at the start
	prefix := make([]float64, len(sh.order)+1)
	for i, o := range sh.order {
		prefix[i+1] = prefix[i] + sweep[o]
	}
	rounds := float64(envelopeRounds + 1) // settle's sweeps, at most, before it shrinks
	all := prefix[len(sh.order)]
	nk := float64(sh.n) * float64(sh.k)
	w.Spread = rounds * all
	w.Cells = nk + storeReads*float64(sh.n)*float64(sh.k)
	bestM, bestAcc, prev := sh.k, sh.accuracy(eps, sh.k), -1.0
	for m := 1; 2*m <= sh.k; m *= 2 {
		w.Spread += rounds * prefix[min(m, len(sh.order))]
		w.Cells += nk + storeReads*float64(sh.n)*float64(m)
		acc := sh.accuracy(eps, m)
		if acc > bestAcc {
			bestM, bestAcc = m, acc
		}
		if acc <= prev {
			break
		}
		prev = acc
	}
	if sh.n*sh.k <= envelopeOptimizeMaxWork {
		w.Spread += (float64(optimizeSteps(sh.n, sh.k)) + rounds) * all
		w.Cells += nk + storeReads*nk
		return w
	}
	st := min(envelopeOptimizeSteps, max(envelopeOptimizeMinSteps, float64(envelopeOptimizeMaxWork)*envelopeOptimizeSteps/(float64(sh.n)*float64(bestM))))
	w.Spread += (math.Floor(st) + rounds) * prefix[min(bestM, len(sh.order))]
	w.Cells += nk + storeReads*float64(sh.n)*float64(bestM)
	return w
}

// storeReads is how often a proposal's settle passes over its stored rows
// (the records from the third round on, the lowering, shrink's shifts).
const storeReads = 12

// sweepWork returns, per community, the nodes its spread at ε′ settles
// and the edges it scans, over the graph: a node at D hops is settled
// where ε′·D < floor and its edges scanned where ε′·(D + 1) < floor
// (the start weights are ≥ 0: this bounds the reach).
func (sh *calibrationShape) sweepWork(eps, floor float64) []float64 {
	out := make([]float64, sh.k)
	scale := float64(sh.n) / float64(len(sh.dist))
	top := max(-math.Expm1(-eps), 1-envelopeAbstainMin)
	for j, d := range sh.dist {
		// The start weight near s: −ln(top/Ẑ(s)), Ẑ(s) = Σ_o e^{−ε′·D(s, o)}.
		z := 0.0
		for _, h := range d {
			if h >= 0 {
				z += math.Exp(-eps * float64(min(h, MaxAnswerCap)))
			}
		}
		a := max(0, math.Log(z/top))
		for o, h := range d {
			if h < 0 || a+eps*float64(h) >= floor {
				continue
			}
			out[o] += scale
			if a+eps*float64(h+1) < floor {
				out[o] += scale * sh.deg[j]
			}
		}
	}
	return out
}

// accuracy is the sampled start accuracy of answering the m largest
// communities: each answered node s gets top/Ẑ(s), Ẑ summed over the
// answered communities (sparse's start weights, before settling).
func (sh *calibrationShape) accuracy(eps float64, m int) float64 {
	answered := make([]bool, sh.k)
	for _, o := range sh.order[:min(m, len(sh.order))] {
		answered[o] = true
	}
	acc := 0.0
	for j, d := range sh.dist {
		if !answered[sh.comm[j]] {
			continue
		}
		z := 0.0
		for o, h := range d {
			if answered[o] && h >= 0 {
				z += math.Exp(-eps * float64(min(h, MaxAnswerCap)))
			}
		}
		acc += 1 / z
	}
	return acc / float64(len(sh.dist))
}

// lossWork is the geometric caps' loss checks: for every cap calibrate
// tries (quarter steps to 3, whole hops to the largest distance + 1), the
// bisection's steps over [ε/2, ε] on the grid, each one pass over every
// edge and node's distance histogram.
func (sh *calibrationShape) lossWork(epsilon float64) float64 {
	caps := 0
	for q := 4; q <= 4*min(MaxAnswerCap, sh.maxDist+1); q++ {
		if q <= 12 || q%4 == 0 {
			caps++
		}
	}
	steps := math.Log2(max(2, epsilon/2*gridOne)) + 2
	return float64(caps) * steps * (sh.edges2 + float64(sh.n)*(MaxAnswerCap+1))
}

// workCount, set by tests only, counts what calibrations do in
// calibrationWork's units (spreads: nodes settled and edges scanned; loss
// checks: edges and histogram entries), to hold the model to it.
var workCount *workCounter

type workCounter struct{ spread, loss atomic.Int64 }
