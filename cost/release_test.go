package cost

import (
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// TestReleaseHeldDelta2: a Δ2 the release would take from its cache
// (ReleaseWork.Held, per τ) is priced 0 s as reused — from the store, or
// from --sensitivity-cache when that names the cache — and every other τ
// at delta2Step's model, the dry run included; the release's own model still
// times its forecasts (5% of the modelled Δ2).
func TestReleaseHeldDelta2(t *testing.T) {
	g, _ := laplacian.Karate()
	modelled := delta2Step(g, 1, sensitivity.Options{}, nil).Seconds
	if !(modelled > 0) {
		t.Fatalf("Δ2's model on karate: %v s", modelled)
	}
	for _, c := range []struct {
		cached, dryRun bool
		where          string
	}{{false, false, "reused from the store"}, {true, false, "reused from --sensitivity-cache"}, {false, true, "reused from the store"}} {
		e := NewEstimate("release", "karate", g, 1, time.Now())
		w := ReleaseWork{Taus: []float64{1, 2}, Graph: g, Alpha: 1, Cached: c.cached, DryRun: c.dryRun,
			Held: func(tau float64) bool { return tau == 1 }}
		if err := Release(e, w); err != nil {
			t.Fatal(err)
		}
		if len(e.Steps) != 2 {
			t.Fatalf("%+v: steps %+v, want Δ2 at two τ", c, e.Steps)
		}
		held, computed := e.Steps[0], e.Steps[1]
		if held.Seconds != 0 || !strings.HasPrefix(held.Model, c.where) {
			t.Errorf("%+v: the held τ's step %+v, want 0 s and %q", c, held, c.where)
		}
		if want := delta2Step(g, 2, sensitivity.Options{}, nil).Seconds; computed.Seconds != want || strings.Contains(computed.Model, "reused") {
			t.Errorf("%+v: the other τ's step %+v, want %v s computed", c, computed, want)
		}
	}
}
