package job

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
)

var locateProps = LocateProperties{Mass: "mass", Community: "comm", Probability: "prob", Rank: "rank"}

// locateOnce starts and publishes a localisation of three nodes on m,
// recording a failure as the command does.
func locateOnce(m *Memory, runID string) error {
	ctx := context.Background()
	rec := connector.RunRecord{RunID: runID, Command: "locate", Projection: connector.Projection{NodeKeyProperty: "roomId"}}
	run, err := StartLocate(ctx, m, rec, locateProps, lease)
	if err != nil {
		return err
	}
	res := &graphcloak.LocateResult{Sigma: 1, Estimator: "posterior", Report: &community.Report{}}
	for i, k := range []string{"a", "b", "c"} {
		res.Nodes = append(res.Nodes, graphcloak.NodeResult{Key: k, Mass: float64(i), CommunityID: i % 2, Probability: 0.5, Rank: i + 1})
	}
	if _, err = PublishLocate(ctx, m, run, res, false, locateProps, nil); err != nil {
		RecordFailure(ctx, nil, run, err)
	}
	return err
}

// A localisation whose output property holds a release's values (or is
// the node key) is refused before its run starts; a localisation stopped
// at any step is never recorded succeeded unless every node holds its
// results.
func TestLocateClaimsAndCrashes(t *testing.T) {
	for name, own := range map[string][2]string{
		"mass holds release values": {"mass", connector.KindReleaseValues},
		"rank is the node key":      {"rank", connector.KindNodeKey},
	} {
		f := newFixture(t)
		f.mem.Own(own[0], own[1])
		if err := locateOnce(f.mem, "l1"); errkind.Of(err) != errkind.BadInput || len(f.mem.Runs()) != 0 {
			t.Errorf("%s: %v (kind %v), %d runs; want bad input, no run", name, err, errkind.Of(err), len(f.mem.Runs()))
		}
	}
	clean := newFixture(t)
	if err := locateOnce(clean.mem, "l1"); err != nil {
		t.Fatal(err)
	}
	total := len(clean.mem.Steps())
	for _, kill := range []bool{true, false} {
		for k := 1; k <= total; k++ {
			f := newFixture(t)
			f.mem.CrashAt, f.mem.Kill = k, kill
			err := locateOnce(f.mem, "l1")
			written := 0
			for _, key := range []string{"a", "b", "c"} {
				if _, ok := f.mem.Node(key)["rank"]; ok {
					written++
				}
			}
			name := fmt.Sprintf("kill=%v step %d (%s)", kill, k, clean.mem.Steps()[k-1])
			runs := f.mem.Runs()
			switch {
			case err == nil && (len(runs) != 1 || runs[0].Status != connector.StatusSucceeded || written != 3):
				t.Errorf("%s: no error, runs %+v, %d nodes written", name, runs, written)
			case err != nil && len(runs) == 1 && runs[0].Status == connector.StatusSucceeded:
				t.Errorf("%s: %v yet recorded succeeded", name, err)
			case err != nil && !kill && len(runs) == 1 && runs[0].Status != connector.StatusFailed && k < total:
				t.Errorf("%s: failure not recorded: %+v", name, runs[0])
			}
		}
	}
}
