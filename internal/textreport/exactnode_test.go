package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// karateNoise is the noise of a karate release at ε = 4, δ = 1e-5, τ = 1.
var karateNoise = privacy.NodeNoise{Sigma: 0.412784, Sensitivity: 0.356418, Alpha: 1, Delta: 1e-5, Widening: 3.6e-4}

const notPrivate = "its exact node is NOT private"

// TestExactNodeSaysNotPrivateAboveTheThreshold: the line says the exact
// node is NOT private at masses above the threshold mass, and private at
// that ε below it — each time naming the threshold mass and what a per-node
// release protects.
func TestExactNodeSaysNotPrivateAboveTheThreshold(t *testing.T) {
	for _, n := range []privacy.NodeNoise{karateNoise, {Sigma: 2, Sensitivity: 0.7, Alpha: 3, Delta: 1e-7}} {
		unit, err := n.ExactNode(n.Alpha)
		if err != nil {
			t.Fatal(err)
		}
		above := unit.NotPrivateAbove
		for _, f := range []float64{0.1, 0.9, 1.1, 10} {
			e, err := n.ExactNode(f * above)
			if err != nil {
				t.Fatal(err)
			}
			line := ExactNode(e, "a source")
			want := f > 1
			if strings.Contains(line, notPrivate) != want || strings.Contains(line, "is private at that ε") == want {
				t.Errorf("α %g at %g× the threshold mass %g: want NOT private %v:\n%s", n.Alpha, f, above, want, line)
			}
			if !strings.Contains(line, massUnits(above)) {
				t.Errorf("α %g at %g×: the threshold mass %s is not named:\n%s", n.Alpha, f, massUnits(above), line)
			}
			if (n.Alpha != 1) != strings.Contains(line, "protected units of α = 3") {
				t.Errorf("α %g: protected units said wrongly:\n%s", n.Alpha, line)
			}
		}
	}
}

// TestLocateSaysTheExactNodesPrivacy: locate's text says the exact node's
// privacy at the source mass: NOT private for a heavy release, private at
// one unit for a release that shows no mass, and "likely NOT private"
// where the lower bound is private but the estimate is above the
// threshold mass.
func TestLocateSaysTheExactNodesPrivacy(t *testing.T) {
	at := func(m float64) *privacy.ExactNode {
		e, err := karateNoise.ExactNode(m)
		if err != nil {
			t.Fatal(err)
		}
		return &e
	}
	for _, c := range []struct {
		name          string
		mass          forecast.MassEstimate
		exact         *privacy.ExactNode
		want, notWant []string
	}{
		{"30 units", forecast.MassEstimate{Mass: 33.1, Low: 27.7, SE: 2.4}, at(27.7),
			[]string{"exact node: a source of at least 27.7 units", notPrivate, "above 2.19 units"}, []string{"is private at that ε"}},
		{"1 unit, no mass shown", forecast.MassEstimate{Mass: 1.2, Low: 0, SE: 2.4, High: 5.9}, at(1),
			[]string{"exact node: one protected unit", "ε = 4 at δ = 1e-05", "is private at that ε", "above 2.19 units (ε > 10) the exact node is NOT private",
				"whether this source is heavier the release cannot tell (it carries ≈ 1.2 units ± 2.4)"}, []string{notPrivate, "at most"}},
		{"light, and at most", forecast.MassEstimate{Mass: 1, Low: 0.5, SE: 0.3, High: 1.6}, at(0.5),
			[]string{"a source of at least 0.5 units", "is private at that ε", "this release carries at most 1.6 units (95%)"}, []string{notPrivate, "cannot tell"}},
		{"stated", forecast.GivenMass(30, "--source-mass"), at(30),
			[]string{"exact node: the stated source of 30 units moved one hop: ε = 457", notPrivate}, nil},
	} {
		s := &job.LocateSummary{Graph: "karate", Estimator: "posterior", Sigma: 0.41, Tau: 1, Report: locateReport(), SourceMass: &c.mass, ExactNode: c.exact}
		for _, dry := range []bool{false, true} {
			s.DryRun = dry
			var b bytes.Buffer
			if err := Locate(&b, s); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("%s (dry run %v): missing %q:\n%s", c.name, dry, w, b.String())
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(b.String(), w) {
					t.Errorf("%s (dry run %v): says %q:\n%s", c.name, dry, w, b.String())
				}
			}
		}
	}
}

// TestPlanSaysFromWhichMassTheNodeIsNotPrivate: a per-node row with the
// exact node's curve prints it after its forecast by source mass, with the
// mass from which on the exact node is not private.
func TestPlanSaysFromWhichMassTheNodeIsNotPrivate(t *testing.T) {
	f := forecast.Forecast{Mode: forecast.ModePerNode, Epsilon: 4, Communities: 4, Chance: 0.25,
		MassCurve: []forecast.MassPoint{{Mass: 1, CommunityAccuracy: 0.3}, {Mass: 10, CommunityAccuracy: 0.9}}}
	for _, m := range forecast.MassGrid() {
		e, err := karateNoise.ExactNode(m)
		if err != nil {
			t.Fatal(err)
		}
		f.ExactNode = append(f.ExactNode, e)
	}
	var b bytes.Buffer
	if err := Forecasts(&b, []forecast.Forecast{f}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"per-node at ε = 4, exact node by source mass (units: ε per hop at δ = 1e-05): 0.1: 0.32", "1: 4 ·", "10: 76.9", "— NOT private above 2.19 units (ε > 10"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("missing %q:\n%s", w, b.String())
		}
	}
}
