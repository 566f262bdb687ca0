package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// A coordinator that splits one release into per-sensor orders — the
// same release id, scope and epoch, each order listing only its sensor
// (n = 1) — gets reports that a collector holding the release's full
// order refuses (other-order, exit 3): a report's MAC covers the SHA-256
// of the order it answers. Beside it the honest path, a sensor given the
// full order, is accepted and closes into the release.
func TestCollectRefusesReportOfSplitOrder(t *testing.T) {
	r := newLocalRig(t, 3)
	rid := privacy.NewReleaseID()
	full := r.order(t, "e1", func(o *sensor.Order) { o.ReleaseID = rid })
	n0, n1 := r.nodes[0], r.nodes[1]
	split := r.order(t, "e1-split", func(o *sensor.Order) { o.ReleaseID, o.Epoch, o.Nodes = rid, "e1", []string{n0} })
	splitRep, code, err := r.report(t, split, n0, "21.375")
	if code != 0 {
		t.Fatalf("sensor report of the split order: exit %d: %v", code, err)
	}
	honest, code, err := r.report(t, full, n1, "-3.25")
	if code != 0 {
		t.Fatalf("sensor report of the full order: exit %d: %v", code, err)
	}
	var lines []byte
	for _, rep := range []sensor.Report{splitRep, honest} {
		b, _ := json.Marshal(rep)
		lines = append(append(lines, b...), '\n')
	}
	reports := filepath.Join(r.dir, "reports.jsonl")
	os.WriteFile(reports, lines, 0o644)
	out, code, _ := runPrivacyCLI(t, "collect", "--order", full, "--coordinator-key", r.coord+".pub", "--mac-keys", filepath.Join(r.dir, "macs.csv"),
		"--journal", filepath.Join(r.dir, "journal"), "--reports", reports, "--close", "--out", filepath.Join(r.dir, "release.json"))
	if code != exitBadInput || !strings.Contains(out, "line 1\t"+n0+"\trefused other-order: ") || !strings.Contains(out, "line 2\t"+n1+"\taccepted") {
		t.Fatalf("collect of a split order's report and an honest one: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "split to fewer nodes") {
		t.Errorf("the refusal does not say why:\n%s", out)
	}
	rel, err := privacy.ReadReleaseFile(filepath.Join(r.dir, "release.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Keys) != 1 || rel.Keys[0] != n1 || rel.Grid[0] != honest.Grid {
		t.Errorf("the release holds %v %v, want only the honest report of %s (%d)", rel.Keys, rel.Grid, n1, honest.Grid)
	}
}
