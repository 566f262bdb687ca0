package job_test

import (
	"context"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

// The dry run refuses what the release refuses, with
// the same error and kind, over every refusal the release has once the
// plan's checks passed (Δ2 zero, a τ too large for the noise grid,
// readings off the grid, --refuse-at-chance) and those the plan shares
// (over budget, classic at ε ≥ 1, bad --smooth). Before: an edgeless
// graph's dry run said it would charge and draw (the release: "sensitivity
// is zero", exit 3); τ = 1e6 dry-ran and the release died with "grid
// exponent = -9223372036854775808 must be in [-60, 60]".
func TestDryRunRefusesWhatReleaseRefuses(t *testing.T) {
	ctx := context.Background()
	edgeless, err := laplacian.FromEdges(4, []string{"a", "b", "c", "d"}, nil, laplacian.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		graph  *laplacian.Graph
		spec   func(*ReleaseSpec)
		values func([]float64)
		want   string // in the message
	}{
		{name: "edgeless projection", graph: edgeless, want: "sensitivity is zero"},
		{name: "tau 1e6", spec: func(s *ReleaseSpec) { s.Tau = 1e6 }, want: "largest usable τ"},
		{name: "tau 1000", spec: func(s *ReleaseSpec) { s.Tau = 1000 }, want: "largest usable τ"},
		{name: "readings off the grid", values: func(y []float64) { y[0] = 1e300 }, want: "too large for the noise grid"},
		{name: "at chance", spec: func(s *ReleaseSpec) { s.RefuseAtChance, s.ForecastTrials, s.Epsilon = true, 60, 0.05 }, want: "chance"},
		{name: "over budget", spec: func(s *ReleaseSpec) { s.Epsilon = 40 }, want: "budget"},
		{name: "classic at ε ≥ 1", spec: func(s *ReleaseSpec) { s.Mechanism = privacy.MechanismClassic }, want: "classic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(dry bool) (*fixture, error) {
				f := newFixture(t)
				if c.graph != nil {
					f.graph = c.graph
				}
				s := f.spec("r1")
				s.DryRun = dry
				if c.spec != nil {
					c.spec(&s)
				}
				env := f.env()
				load := env.Load
				env.Load = func(ctx context.Context) (*Input, error) {
					in, err := load(ctx)
					if err == nil && c.values != nil {
						c.values(in.Readings)
					}
					return in, err
				}
				p, err := PlanRelease(ctx, s, env)
				if err != nil || dry {
					return f, err
				}
				_, err = Execute(ctx, p)
				return f, err
			}
			_, dryErr := run(true)
			f, relErr := run(false)
			if relErr == nil {
				t.Fatalf("the release went through; the case is not a refusal")
			}
			if !strings.Contains(relErr.Error(), c.want) {
				t.Errorf("release: %v; want it to say %q", relErr, c.want)
			}
			if dryErr == nil {
				t.Fatalf("dry run: no refusal; the release refuses: %v", relErr)
			}
			if dryErr.Error() != relErr.Error() || errkind.Of(dryErr) != errkind.Of(relErr) {
				t.Errorf("dry run: %v (%v)\nrelease: %v (%v)", dryErr, errkind.Of(dryErr), relErr, errkind.Of(relErr))
			}
			if strings.Contains(relErr.Error(), "grid exponent") {
				t.Errorf("an internal error reaches the user: %v", relErr)
			}
			if f.mem.Charges() != 0 {
				t.Errorf("the refused release charged %d times", f.mem.Charges())
			}
		})
	}
}
