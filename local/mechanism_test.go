package local

import (
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// A local release's metadata names the mechanism privacy's table says a
// sensor draws with the order's sampler (its name, accounting and sampler
// version), as the central keyed release of that mechanism records it.
func TestReleaseMetaReadsTheMechanismTable(t *testing.T) {
	n := 0
	for _, m := range privacy.Mechanisms() {
		if !m.AtSensor {
			continue
		}
		n++
		o := testOrder([]string{"a", "b"})
		o.Sampler.Version = m.Sampler
		meta := ReleaseMeta(o)
		if meta.Mechanism != m.Name || meta.Accounting != m.Accounting || meta.SamplerVersion != m.Sampler || !meta.Keyed {
			t.Errorf("%s: metadata %s / %s / sampler %d, want the row's", m.Name, meta.Mechanism, meta.Accounting, meta.SamplerVersion)
		}
	}
	if n == 0 {
		t.Error("no mechanism runs at a sensor")
	}
}
