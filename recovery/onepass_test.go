package recovery

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/laplacian"
)

// twoPassCertifier is the certifier as it was built before issue 79: the
// whole pass with the loose action, every row correlated (a pass that
// fills EdgeTerms skips none), and, when the weakest source turns out
// too weak for it (checkRange), the whole pass again with the precise
// action — the oracle the single pass must certify alike.
func twoPassCertifier(t *testing.T, g *laplacian.Graph, tau float64, opt CertifierOptions) (*Certifier, int) {
	t.Helper()
	for passes, precise := 1, opt.Precise; ; passes, precise = passes+1, true {
		o := opt
		o.Precise, o.EdgeTerms = precise, &EdgeTerms{}
		part, err := NewCertifierPart(context.Background(), g, tau, o)
		if err != nil {
			t.Fatal(err)
		}
		c, err := MergeCertifierParts(g, tau, o, []*CertifierPart{part})
		var mre *ModelRangeError
		if !errors.As(err, &mre) || precise {
			if err != nil {
				t.Fatal(err)
			}
			return c, passes
		}
	}
}

// sameCertificate fails unless the two certifiers certify the same: the
// same action, bit-identical norms, the same classes and the same
// bounds on noise and background.
func sameCertificate(t *testing.T, name string, got, want *Certifier) {
	t.Helper()
	gs, err := got.Classes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := want.Classes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case got.Precise() != want.Precise() || got.Tol() != want.Tol():
		t.Errorf("%s: precise %v at T %g, the two-pass certificate %v at %g", name, got.Precise(), got.Tol(), want.Precise(), want.Tol())
	case !slices.Equal(got.norm, want.norm):
		t.Errorf("%s: the norms differ from the two-pass certificate's", name)
	case !slices.Equal(gs.Class, ws.Class) || gs.Count != ws.Count || gs.Merged != ws.Merged || gs.MergeCos != ws.MergeCos:
		t.Errorf("%s: %d classes (%d merged), the two-pass certificate %d (%d)", name, gs.Count, gs.Merged, ws.Count, ws.Merged)
	case gs.Misplaced != 0 || gs.Refused != 0 || gs.RefitFailures != ws.RefitFailures:
		t.Errorf("%s: %d misplaced, %d refused, %d refit failures (two-pass: %d)", name, gs.Misplaced, gs.Refused, gs.RefitFailures, ws.RefitFailures)
	case got.NoiseBound() != want.NoiseBound() || got.MaxBackground() != want.MaxBackground():
		t.Errorf("%s: ν %g, B %g; the two-pass certificate ν %g, B %g", name, got.NoiseBound(), got.MaxBackground(), want.NoiseBound(), want.MaxBackground())
	}
}

// weakBlock is a random graph of 1000 nodes of degree ≈ 20 (an
// expander: every non-constant mode decays at ≥ 11): at τ = 1 every
// source's ‖P·a_j‖ is ~1e−5, too weak for the loose action, and the
// action is Chebyshev (cheaper than dense here).
func weakBlock(t *testing.T) *laplacian.Graph {
	g, _, err := laplacian.SBM([]int{1000}, 0.02, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// powerSubgraph is the power grid's nodes 0 … m−1 and the edges among
// them (skipped when the network is not fetched).
func powerSubgraph(t *testing.T, m int) *laplacian.Graph {
	gt, err := datasets.OpenStructure("", "power")
	var missing *datasets.MissingError
	if errors.As(err, &missing) {
		t.Skipf("%v (scripts/fetch-datasets.sh fetches it)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := gt.Graph()
	if err != nil {
		t.Fatal(err)
	}
	var edges []laplacian.Edge
	for i := 0; i < m; i++ {
		cols, _ := g.Neighbors(i)
		for _, j := range cols {
			if int(j) > i && int(j) < m {
				edges = append(edges, laplacian.Edge{U: int32(i), V: j, Weight: 1})
			}
		}
	}
	return mustGraph(t, m, edges)
}

// TestOnePassCertifiesAsTwo (issue 79): the single pass — its action
// decided up front, rows that keep no pair not correlated — certifies
// exactly what the loose pass and its precise rerun certified: the same
// action, bit-identical norms, the same classes, ν and B, on karate, an
// SBM, a preferential-attachment graph, a power-grid subgraph and a graph
// where every source is too weak for the loose action (the probe decides
// the precise one up front), at τ where the loose action suffices and
// where it does not; and its second action runs for fewer sources than
// the old pass's.
func TestOnePassCertifiesAsTwo(t *testing.T) {
	karate, _ := laplacian.Karate()
	sbm, _, err := laplacian.SBM([]int{120, 120, 120}, 0.1, 0.01, 5)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := laplacian.PreferentialAttachment(1500, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	graph := func(g *laplacian.Graph) func(*testing.T) *laplacian.Graph {
		return func(*testing.T) *laplacian.Graph { return g }
	}
	cases := []struct {
		name             string
		g                func(*testing.T) *laplacian.Graph
		tau, tol         float64
		precise, skipped bool // the oracle needed the precise rerun; rows were skipped
	}{
		{"karate τ=1", graph(karate), 1, 0, false, false},
		{"karate τ=30", graph(karate), 30, 0, false, false},
		{"sbm τ=1", graph(sbm), 1, 0, false, false},
		{"pa τ=1", graph(pa), 1, 0, false, true},
		{"pa τ=1 T=0.05", graph(pa), 1, 0.05, false, true},
		{"weak block τ=1", weakBlock, 1, 0, true, false},
		{"power[:2000] τ=2", func(t *testing.T) *laplacian.Graph { return powerSubgraph(t, 2000) }, 2, 0, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g(t)
			opt := CertifierOptions{Tol: tc.tol}
			want, passes := twoPassCertifier(t, g, tc.tau, opt)
			if (passes == 2) != tc.precise {
				t.Fatalf("the two-pass certifier ran %d passes: the case is not what it says", passes)
			}
			got, err := NewCertifier(context.Background(), g, tc.tau, opt)
			if err != nil {
				t.Fatal(err)
			}
			sameCertificate(t, tc.name, got, want)
			t.Logf("%s: precise %v, second action for %d of %d sources, %d classes", tc.name, got.Precise(), got.rowsCorrelated, g.N(), got.classes.Count)
			if tc.skipped && got.rowsCorrelated >= g.N() {
				t.Errorf("the second action ran for all %d sources: none skipped", g.N())
			}
		})
	}
}

// TestLoosePassStopsAtWeakSource: a loose pass that meets a source too
// weak for its action stops at that block (the precise pass is then
// certain to be needed), computing fewer than every source, whatever the
// probe of the hubs said.
func TestLoosePassStopsAtWeakSource(t *testing.T) {
	g := weakBlock(t)
	done := 0
	var mu sync.Mutex
	opt := CertifierOptions{Progress: func(d, _ int) { mu.Lock(); done = max(done, d); mu.Unlock() }}
	_, err := newCertifierPart(context.Background(), g, 1, opt, passStopWeak)
	var weak *weakSourceError
	if !errors.As(err, &weak) {
		t.Fatalf("got %v, want a *weakSourceError", err)
	}
	if done >= g.N() {
		t.Errorf("the pass went on to %d of %d sources after a source too weak for it", done, g.N())
	}
	if precise, _, err := needsPrecise(g, 1, DefaultFitTolerance); err != nil || !precise {
		t.Errorf("the probe of the hubs says precise %v (%v): every source is too weak for the loose action", precise, err)
	}
}

// TestApplyWideIsOneApplication: the action applied in slices of
// applyWidth columns gives every column bit for bit what one application
// to the whole block gives (so the pass's numbers do not depend on the
// width), for blocks of 32, 17 (no slice of one column) and 33.
func TestApplyWideIsOneApplication(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(800, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	act, err := action(g, 1, DefaultFitTolerance, false)
	if err != nil {
		t.Fatal(err)
	}
	n := g.N()
	for _, b := range []int{32, 17, 33} {
		x := make([]float64, n*b)
		for i := range x {
			x[i] = math.Sin(float64(i)) // every entry non-zero
		}
		whole, wide := make([]float64, n*b), make([]float64, n*b)
		act.Apply(whole, x, b)
		applyWide(act, wide, x, b, nil)
		if !slices.Equal(whole, wide) {
			t.Errorf("b = %d: the columns applied %d at a time differ from one application", b, applyWidth)
		}
	}
}

// twoPassNoiseCertifier is the sensor-noise certifier as it was before
// issue 79: a whole certificate (twoPassCertifier) at the default T for
// its weakest norm, then the certificate at the T the noise needs,
// raised until its model admits the noise — T chosen by the certifier's
// rule (toleranceFor, with its margin for the pass's action error).
func twoPassNoiseCertifier(t *testing.T, g *laplacian.Graph, tau, noise float64) *Certifier {
	t.Helper()
	nu := ModelNoiseBound(noise, g.N())
	c, _ := twoPassCertifier(t, g, tau, CertifierOptions{})
	lo := minOf(c.norm) - c.eta
	for try := 0; try == 0 || (try < 4 && c.NoiseBound() < nu); try++ {
		tol, err := toleranceFor(g, tau, nu, lo)
		if err != nil {
			t.Fatal(err)
		}
		if tol == c.tol {
			break
		}
		c, _ = twoPassCertifier(t, g, tau, CertifierOptions{Tol: tol})
		lo *= c.NoiseBound() / nu * (1 - 1e-6)
	}
	return c
}

// TestOnePassCertifiesNoiseAsTwo: with a stated sensor noise, the pass of
// the norms alone at the default T, then the pass at the noise's T,
// certify what two whole certificates certified (the same T, norms,
// classes, ν and B).
func TestOnePassCertifiesNoiseAsTwo(t *testing.T) {
	for _, tc := range noiseCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want := twoPassNoiseCertifier(t, tc.g, 1, tc.noise)
			got, err := NewCertifier(context.Background(), tc.g, 1, CertifierOptions{SensorNoise: tc.noise})
			if err != nil {
				t.Fatal(err)
			}
			sameCertificate(t, tc.name, got, want)
		})
	}
}

// noiseCase is a graph and a stated sensor noise for the sensor-noise
// certifier's tests.
type noiseCase struct {
	name  string
	g     *laplacian.Graph
	noise float64
}

// noiseCases are a PA graph at a loose and a tight noise and an SBM.
func noiseCases(t *testing.T) []noiseCase {
	t.Helper()
	pa, err := laplacian.PreferentialAttachment(600, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	sbm, _, err := laplacian.SBM([]int{120, 120, 120}, 0.1, 0.01, 5)
	if err != nil {
		t.Fatal(err)
	}
	return []noiseCase{{"pa ν=0.02", pa, 0.02}, {"pa ν=0.001", pa, 0.001}, {"sbm ν=0.001", sbm, 0.001}}
}
