package recovery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/internal/heattest"
	"github.com/graphcloak/graphcloak/laplacian"
)

type certCase struct {
	name string
	g    *laplacian.Graph
	taus []float64
}

func certCases(t *testing.T) []certCase {
	karate, _ := laplacian.Karate()
	pa, err := laplacian.PreferentialAttachment(300, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	geo, _, err := laplacian.RandomGeometric(200, 0.15, 3)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := laplacian.Path(40)
	return []certCase{
		{"karate", karate, []float64{0.01, 1, 5, 30, 50, 1e6}},
		{"pa300", pa, []float64{0.01, 1, 10}},
		{"geometric200", geo, []float64{0.1, 3}},
		{"hub-arms-path", heattest.HubArmsPath(t), []float64{1, 100}},
		{"path40", path, []float64{1, 200}},
	}
}

// TestCertifiedRecoveryOracle is the exhaustive check: for every source of
// every graph, readings computed by an independent expm at masses 1e−6 to
// 1e6 (with and without a background and sensor noise below the
// tolerance) are fitted to a node of the source's class — never refused,
// never another class — or the τ is refused from the graph alone.
func TestCertifiedRecoveryOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive: every source of five graphs")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range certCases(t) {
		for _, tau := range tc.taus {
			t.Run(fmt.Sprintf("%s/tau=%g", tc.name, tau), func(t *testing.T) {
				c, err := NewCertifier(ctx, tc.g, tau, CertifierOptions{})
				var mre *ModelRangeError
				if errors.As(err, &mre) {
					t.Logf("τ refused from the graph: %v", err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				sc, err := c.Classes(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if sc.Refused != 0 || sc.Misplaced != 0 || sc.RefitFailures != 0 || sc.SourcesRefitted != len(sampleOf(tc.g.N())) {
					t.Fatalf("audit: %d refused, %d misplaced, %d of %d refits failed", sc.Refused, sc.Misplaced, sc.RefitFailures, sc.SourcesRefitted)
				}
				heat := heattest.PadeHeat(tc.g, tau)
				n := tc.g.N()
				// Brute force over every pair: two nodes whose directions
				// are confusable are in one class (the pass's screening
				// is exhaustive).
				u := make([][]float64, n)
				for j := range u {
					col := make([]float64, n)
					for i := range col {
						col[i] = heat.At(i, j)
					}
					p, _, _ := centered(col)
					nrm := math.Sqrt(dot(p, p))
					for i := range p {
						p[i] /= nrm
					}
					u[j] = p
				}
				for j := 0; j < n; j++ {
					for k := j + 1; k < n; k++ {
						if dot(u[j], u[k]) >= sc.MergeCos+1e-6 && sc.Class[j] != sc.Class[k] {
							t.Fatalf("nodes %d and %d: cos %.9f ≥ merge cos %.9f, in classes %d and %d", j, k, dot(u[j], u[k]), sc.MergeCos, sc.Class[j], sc.Class[k])
						}
					}
				}
				y := make([]float64, n)
				for s := 0; s < n; s++ {
					for _, mass := range []float64{1e-250, 1e-6, 1, 37.5, 1e6, 1e250} {
						for variant := 0; variant < 4; variant++ {
							for i := range y {
								y[i] = mass * heat.At(i, s)
							}
							switch variant {
							case 1: // a constant background of 1% of the total mass
								for i := range y {
									y[i] += 0.01 * mass
								}
							case 3: // the largest background the model allows, nearly
								for i := range y {
									y[i] += 0.9 * c.MaxBackground() * mass / float64(n)
								}
							case 2: // sensor noise at a tenth of the tolerance
								unit := make([]float64, n)
								for i := range unit {
									unit[i] = y[i] / mass
								}
								sig := mass * signalNorm(unit) // no overflow at 1e250
								for i := range y {
									y[i] += 0.1 * c.Tol() * sig * rng.NormFloat64() / math.Sqrt(float64(n)) / 3
								}
							}
							fit, err := c.Fit(y)
							if err != nil {
								t.Fatalf("source %d mass %g variant %d: refused: %v", s, mass, variant, err)
							}
							if sc.Class[fit.Node] != sc.Class[s] {
								t.Fatalf("source %d mass %g variant %d: fitted %d (class %d), source class %d",
									s, mass, variant, fit.Node, sc.Class[fit.Node], sc.Class[s])
							}
						}
					}
				}
				t.Logf("%d classes of %d nodes (%d merged), merge cos %.6f", sc.Count, n, sc.Merged, sc.MergeCos)
			})
		}
	}
}

// signalNorm is ‖P·y‖.
func signalNorm(y []float64) float64 {
	p, _, _ := centered(y)
	s := 0.0
	for _, v := range p {
		s += v * v
	}
	return math.Sqrt(s)
}

// sampleOf is the refit sample of Classes on n nodes.
func sampleOf(n int) []int {
	var s []int
	for j := 0; j < n; j += max(1, n/refitSample) {
		s = append(s, j)
	}
	return s
}

// N shards of the pass merge to the certifier one process computes — the
// same norms and classes to the bit — in any order of the parts; a
// missing, repeated or foreign part is refused.
func TestCertifierShards(t *testing.T) {
	ctx := context.Background()
	pa, err := laplacian.PreferentialAttachment(300, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	karate, _ := laplacian.Karate()
	for _, tc := range []struct {
		name string
		g    *laplacian.Graph
		tau  float64
	}{{"pa300", pa, 10}, {"karate", karate, 5}} {
		one, err := NewCertifier(ctx, tc.g, tc.tau, CertifierOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, N := range []int{2, 3, 7} {
			var parts []*CertifierPart
			for i := N - 1; i >= 0; i-- { // any order
				p, err := NewCertifierPart(ctx, tc.g, tc.tau, CertifierOptions{Shard: Shard{i, N}, Precise: one.Precise()})
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, p)
			}
			merged, err := MergeCertifierParts(tc.g, tc.tau, CertifierOptions{Precise: one.Precise()}, parts)
			if err != nil {
				t.Fatalf("%s N=%d: %v", tc.name, N, err)
			}
			if !reflect.DeepEqual(merged.norm, one.norm) || !reflect.DeepEqual(merged.classes, one.classes) {
				t.Fatalf("%s N=%d: merged classes %d, one process %d", tc.name, N, merged.classes.Count, one.classes.Count)
			}
			var se *ShardError
			if _, err := MergeCertifierParts(tc.g, tc.tau, CertifierOptions{}, parts[1:]); !errors.As(err, &se) {
				t.Errorf("%s N=%d: a missing shard: %v", tc.name, N, err)
			}
			if _, err := MergeCertifierParts(tc.g, tc.tau, CertifierOptions{}, append(parts, parts[0])); !errors.As(err, &se) {
				t.Errorf("%s N=%d: a repeated shard: %v", tc.name, N, err)
			}
			other, _ := NewCertifierPart(ctx, tc.g, tc.tau, CertifierOptions{Shard: Shard{0, N + 1}, Precise: one.Precise()})
			if _, err := MergeCertifierParts(tc.g, tc.tau, CertifierOptions{}, append(parts[1:], other)); !errors.As(err, &se) {
				t.Errorf("%s N=%d: a shard of another count: %v", tc.name, N, err)
			}
		}
	}
}

// Readings of one source at τ = 1 given as τ = 2 are refused; the
// operator's diagnosis (Diagnose) measures the τ at which one source
// explains them, and says when two sources do. The published error text
// is the same fixed sentence for both.
func TestMismatchDiagnosisIsMeasured(t *testing.T) {
	ctx := context.Background()
	g, _ := laplacian.Karate()
	c, err := NewCertifier(ctx, g, 2, CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heat := heattest.PadeHeat(g, 1)
	y := make([]float64, g.N())
	for i := range y {
		y[i] = 1e200 * heat.At(i, 4)
	}
	_, errOtherTau := c.Fit(y)
	mm := c.Diagnose(y)
	if mm == nil || mm.OtherTau != 1 || !(mm.OtherTauResidual <= mm.Tol) || !strings.Contains(mm.Diagnosis(), "at τ = 1 one source explains them") {
		t.Fatalf("τ = 1 readings at τ = 2: %v (diagnosis %+v)", errOtherTau, mm)
	}
	heat2 := heattest.PadeHeat(g, 2)
	for i := range y {
		y[i] = heat2.At(i, 0) + heat2.At(i, 33)
	}
	_, errTwo := c.Fit(y)
	if mm = c.Diagnose(y); mm == nil || !(mm.TwoSourceResidual <= mm.Tol) || strings.Contains(mm.Diagnosis(), "one source explains") {
		t.Fatalf("two sources: %v (diagnosis %+v)", errTwo, mm)
	}
	var a, b *MismatchError
	if !errors.As(errOtherTau, &a) || !errors.As(errTwo, &b) || errOtherTau.Error() != errTwo.Error() {
		t.Fatalf("published texts differ or are not mismatches: %q vs %q", errOtherTau, errTwo)
	}
	for _, e := range []*MismatchError{a, b} {
		if !math.IsNaN(e.TwoSourceResidual) || !math.IsNaN(e.OtherTauResidual) {
			t.Errorf("Fit measured diagnostics it does not publish: %+v", e)
		}
	}
}

// TestRestoredCertifierIsTheFreshOne: a certifier restored from its state
// is the fresh one — the same action's error, so the same published bounds
// (NoiseBound, MaxBackground) and classes — after a loose pass and after a
// precise one. (Restored on the precise action, a loose pass's norms
// would be trusted to an error they were never computed to.)
func TestRestoredCertifierIsTheFreshOne(t *testing.T) {
	g, _, err := laplacian.Generate("sbm:sizes=600x600x600,pin=0.012,pout=0.0008,seed=4")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, precise := range []bool{false, true} {
		fresh, err := NewCertifier(ctx, g, 1, CertifierOptions{Precise: precise})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := fresh.Classes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		restored, rsc, err := RestoreCertifier(ctx, g, 1, fresh.Tol(), fresh.State(sc))
		if err != nil {
			t.Fatal(err)
		}
		if fresh.Precise() != precise || restored.Precise() != precise {
			t.Fatalf("precise %v: fresh %v, restored %v", precise, fresh.Precise(), restored.Precise())
		}
		if restored.NoiseBound() != fresh.NoiseBound() || restored.MaxBackground() != fresh.MaxBackground() {
			t.Fatalf("precise %v: restored ν %v B %v, fresh ν %v B %v", precise,
				restored.NoiseBound(), restored.MaxBackground(), fresh.NoiseBound(), fresh.MaxBackground())
		}
		if rsc.Count != sc.Count || rsc.RefitFailures != 0 {
			t.Fatalf("precise %v: restored classes %d (refit failures %d), fresh %d", precise, rsc.Count, rsc.RefitFailures, sc.Count)
		}
	}
}
