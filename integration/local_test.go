package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// TestLocalReleaseNeo4j: a local release on a projection in Neo4j —
// epoch open reads the graph from the projection, each sensor reports
// (half of them), collect --graph neo4j closes the epoch into its release
// file and writes the noisy values of the nodes that reported under a
// succeeded release run, bound to it; the nodes that did not report get
// nothing. Collecting again publishes nothing more.
func TestLocalReleaseNeo4j(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{15, 15}, 0.3, 0.03, 11)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var nodes strings.Builder
	for _, k := range f.Keys {
		fmt.Fprintln(&nodes, k)
	}
	os.WriteFile(p("nodes.txt"), []byte(nodes.String()), 0o644)
	mustCLI := func(args ...string) string {
		t.Helper()
		r := runCLI(t, s.Password, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s\n%s", args[0], r.Code, r.Stderr, r.Stdout)
		}
		return r.Stdout
	}
	mustCLI("keygen", "--out", p("master.key"))
	mustCLI("keygen", "--signing", "--out", p("coord.key"))
	// A generous cap and floor: the test is the pipeline, not the policy.
	mustCLI("keygen", "--master", p("master.key"), "--nodes", p("nodes.txt"), "--out-dir", p("sensors"), "--mac-csv", p("macs.csv"),
		"--max-epsilon-per-day", "1000", "--sigma-floor", "1e-6")
	mustCLI("budget", "--init", "--ledger", p("ledger.json"), "--scope", e.scope, "--epsilon-total", "10", "--delta-total", "1e-5")
	open := append([]string{"epoch", "open"}, e.projectionFlags()...)
	open = append(open, "--tau", "1", "--epsilon", "1", "--delta", "1e-6", "--ledger", p("ledger.json"), "--scope", e.scope,
		"--epoch", "e1", "--valid-for", "1h", "--signing-key", p("coord.key"), "--out", p("order.json"), "-o", "json")
	mustCLI(open...)
	var reports strings.Builder
	reported := map[string]bool{}
	for i, k := range f.Keys {
		if i%2 == 1 {
			continue
		}
		node := fmt.Sprint(k)
		reported[node] = true
		reports.WriteString(mustCLI("sensor", "report", "--order", p("order.json"), "--coordinator-key", p("coord.key.pub"),
			"--key", p("sensors/"+node+".key"), "--node", node, "--value", fmt.Sprint(f.Obs[i]),
			"--policy", p("sensors/"+node+".policy.json"), "--odometer", p("sensors/"+node+".odometer.json")))
	}
	os.WriteFile(p("reports.jsonl"), []byte(reports.String()), 0o644)
	collect := append([]string{"collect", "--order", p("order.json"), "--coordinator-key", p("coord.key.pub"), "--mac-keys", p("macs.csv"),
		"--journal", p("journal"), "--reports", p("reports.jsonl"), "--close", "--out", p("release.json"), "--write-property", e.write}, e.projectionFlags()...)
	var sum struct {
		RunID   string   `json:"runId"`
		Missing []string `json:"missing"`
	}
	if err := json.Unmarshal([]byte(mustCLI(append(collect, "-o", "json")...)), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.RunID == "" || len(sum.Missing) != len(f.Keys)-len(reported) {
		t.Fatalf("collect: %+v", sum)
	}
	rel, err := privacy.ReadReleaseFile(p("release.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for i, k := range rel.Keys {
		want[k] = rel.Values[i]
	}
	rows := query(t, d, "MATCH (n:`"+f.Label+"`) RETURN toString(n.key) AS k, n[$p] AS v, n[$p + '_runId'] AS r", map[string]any{"p": e.write})
	for _, r := range rows {
		k, _ := r.Get("k")
		v, _ := r.Get("v")
		run, _ := r.Get("r")
		if reported[k.(string)] {
			if v != want[k.(string)] || run != sum.RunID {
				t.Errorf("node %v: %v of run %v, want %v of %s", k, v, run, want[k.(string)], sum.RunID)
			}
		} else if v != nil {
			t.Errorf("node %v did not report but holds %v", k, v)
		}
	}
	st := query(t, d, "MATCH (r:GraphcloakRun {runId: $id}) RETURN r.status AS s", map[string]any{"id": sum.RunID})
	if len(st) != 1 {
		t.Fatalf("run record of %s: %d found", sum.RunID, len(st))
	}
	if s, _ := st[0].Get("s"); s != "succeeded" {
		t.Errorf("run %s: status %v", sum.RunID, s)
	}
	// locate and unmask read the collected run from the database, the
	// sensors that did not report left out.
	loc := append([]string{"locate"}, e.projectionFlags()...)
	mustCLI(append(loc, "--release-run", sum.RunID, "--mode", "stream", "--forecast-trials", "0", "-o", "json")...)
	un := append([]string{"unmask", "--key", p("master.key"), "--release-run", sum.RunID}, e.projectionFlags()...)
	var unmasked struct {
		Rows []struct {
			Key   string  `json:"key"`
			Value float64 `json:"value"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(mustCLI(append(un, "-o", "json")...)), &unmasked); err != nil {
		t.Fatal(err)
	}
	if len(unmasked.Rows) != len(reported) {
		t.Errorf("unmask of the collected run: %d rows, %d sensors reported", len(unmasked.Rows), len(reported))
	}
	for _, row := range unmasked.Rows {
		for i, k := range f.Keys {
			if fmt.Sprint(k) == row.Key && math.Abs(row.Value-f.Obs[i]) > math.Ldexp(1, -rel.Meta.GridExponent) {
				t.Errorf("node %s: unmasked %v, the sensor read %v", row.Key, row.Value, f.Obs[i])
			}
		}
	}
	// Collecting the closed epoch again publishes nothing new.
	var again struct {
		RunID string `json:"runId"`
	}
	json.Unmarshal([]byte(mustCLI(append(collect, "-o", "json")...)), &again)
	n := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, epoch: 'e1'}) RETURN count(r) AS n", map[string]any{"s": e.scope})
	if c, _ := n[0].Get("n"); c != int64(1) {
		t.Errorf("%v run records for the epoch after collecting twice, want 1", c)
	}
}
