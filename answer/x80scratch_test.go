package answer

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/datasets"
	"github.com/graphcloak/graphcloak/privacy"
)

func TestX80EnronByAnswer(t *testing.T) {
	if os.Getenv("X80") == "" {
		t.Skip()
	}
	ctx := context.Background()
	gt, err := datasets.Open(datasets.Dir(), "email-Enron")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := gt.Graph()
	if err != nil {
		t.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := privacy.NewCommunityGeometry(ctx, g, part)
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Graph: g, Geometry: cg, community: part}
	t.Logf("n=%d k=%d memo fits %v", g.N(), cg.K(), g.N()*(cg.K()+1) <= memoEntries)
	w := runtime.GOMAXPROCS(0)
	for _, eps := range []float64{0.5, 2} {
		t0 := time.Now()
		cal, err := privacy.CalibrateAnswer(ctx, cg, eps, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		a := &Audit{}
		ok, err := m.auditByAnswer(ctx, cal, a, w)
		t.Logf("eps=%g calibrate %v byAnswer %v ok=%v err=%v worst=%g acc=%g", eps, t1.Sub(t0), time.Since(t1), ok, err, a.WorstLoss, a.Accuracy)
	}
}
