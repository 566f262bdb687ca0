package job_test

import (
	"encoding/json"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// A localisation at a stated source mass carries the exact node's privacy
// at that mass in its summary and on its run record: for 30 units NOT
// private, with the ε the release's own noise gives (privacy.NodeNoiseOf
// of its metadata).
func TestLocateRecordsTheExactNode(t *testing.T) {
	f := locateFixture(t)
	spec := f.locateSpec("l1")
	spec.ForecastTrials, spec.SourceMass = 10, 30
	sum, err := f.locate(spec, f.graph)
	if err != nil {
		t.Fatal(err)
	}
	e := sum.ExactNode
	if e == nil || e.Mass != 30 || e.Private || !(e.Epsilon > privacy.ExactNodeLimit) {
		t.Fatalf("exact node %+v; want 30 units, NOT private", e)
	}
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(f.run("r1").ReleaseMeta), &meta); err != nil {
		t.Fatal(err)
	}
	n, ok := privacy.NodeNoiseOf(meta)
	if !ok {
		t.Fatalf("the release's metadata %+v lacks Δ2, α or δ", meta)
	}
	want, err := n.ExactNode(30)
	if err != nil {
		t.Fatal(err)
	}
	if *e != want {
		t.Errorf("exact node %+v, want %+v", *e, want)
	}
	p := f.run("l1").Parameters
	if p["exactNodeMass"] != 30.0 || p["exactNodeEpsilon"] != e.Epsilon || p["exactNodePrivate"] != false {
		t.Errorf("run record parameters %v; want the exact node at 30 units", p)
	}
}
