package integration

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
)

func deleteRuns(t *testing.T, s server, ids ...string) {
	d := rawDriver(t, s)
	t.Cleanup(func() {
		query(t, d, "MATCH (r) WHERE (r:GraphcloakRun OR r:GraphcloakReleaseValues) AND r.runId IN $ids DETACH DELETE r",
			map[string]any{"ids": ids})
	})
}

// The run lifecycle: start (running, lease), heartbeat, typed read-back
// of every field, succeed; a record whose lease expired is marked
// abandoned by the next StartRun and can be resumed; a live run cannot.
func TestRunLifecycle(t *testing.T) {
	c, s := connect(t)
	ctx := ctxT(t)
	a, dead, b := uniqueName(t, "runA"), uniqueName(t, "runDead"), uniqueName(t, "runB")
	deleteRuns(t, s, a, dead, b)

	rec := connector.RunRecord{RunID: a, Command: "release",
		Projection: connector.Projection{NodeLabels: []string{"Room"}, RelationshipTypes: []string{"DOOR"}, NodeKeyProperty: "roomId"},
		Parameters: map[string]any{"tau": 0.5, "mechanism": "discrete"}, WriteProperty: "graphcloak_value",
		Scope: "building-7", Epoch: "E1", ReleaseID: "rel-00112233445566778899aabbccddeeff",
		Sigma: 1.25, Delta2: 0.5, Rho: 0.08, Epsilon: 1, Delta: 1e-5, Extra: map[string]any{"note": "x"}}
	run, err := c.StartRun(ctx, rec, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ReadRun(ctx, "", a)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != connector.StatusRunning || got.Attempts != 1 || !got.LeaseExpiresAt.After(time.Now().Add(-time.Minute)) {
		t.Fatalf("started record: status %q attempts %d lease %v", got.Status, got.Attempts, got.LeaseExpiresAt)
	}
	lease0 := got.LeaseExpiresAt
	time.Sleep(50 * time.Millisecond)
	if err := run.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ = c.ReadRun(ctx, "", a); !got.LeaseExpiresAt.After(lease0) {
		t.Errorf("heartbeat did not extend the lease: %v → %v", lease0, got.LeaseExpiresAt)
	}
	if _, err := c.StartRun(ctx, rec, 0); !errors.As(err, new(*connector.RunStateError)) {
		t.Errorf("second StartRun of %s: %v, want *RunStateError", a, err)
	}
	if _, err := c.ResumeRun(ctx, "", a, 0); !errors.As(err, new(*connector.RunStateError)) {
		t.Errorf("resuming a live run: %v, want *RunStateError", err)
	}
	run.Record.NodePropertiesWritten, run.Record.NodeCount = 42, 42
	if err := run.Succeed(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = c.ReadRun(ctx, "", a)
	if err != nil {
		t.Fatal(err)
	}
	want := rec
	want.Status, want.Database, want.Attempts, want.NodePropertiesWritten, want.NodeCount = connector.StatusSucceeded, "neo4j", 1, 42, 42
	want.Extra = map[string]any{"note": "x"}
	got.StartedAt, got.FinishedAt, got.LeaseExpiresAt, got.HeartbeatAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", *got, want)
	}

	// A crashed process: running, lease expired a second ago.
	if err := c.WriteRunRecord(ctx, connector.RunRecord{RunID: dead, Command: "release", Status: connector.StatusRunning,
		LeaseExpiresAt: time.Now().Add(-time.Second), Scope: "building-7", Epoch: "E2"}); err != nil {
		t.Fatal(err)
	}
	runB, err := c.StartRun(ctx, connector.RunRecord{RunID: b, Command: "locate"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := runB.Fail(ctx, fmt.Errorf("boom")); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ReadRun(ctx, "", dead); got.Status != connector.StatusAbandoned {
		t.Fatalf("expired run status %q, want abandoned", got.Status)
	}
	if got, _ := c.ReadRun(ctx, "", b); got.Status != connector.StatusFailed || got.Error != "boom" {
		t.Fatalf("failed run: %q %q", got.Status, got.Error)
	}
	resumed, err := c.ResumeRun(ctx, "", dead, 0)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Record.Attempts != 2 || resumed.Record.Status != connector.StatusRunning || resumed.Record.Epoch != "E2" {
		t.Errorf("resumed: %+v", resumed.Record)
	}
	if err := resumed.Succeed(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := c.FindRelease(ctx, "", "building-7", "E2"); err != nil || r == nil || r.RunID != dead {
		t.Errorf("FindRelease(E2) = %+v, %v", r, err)
	}
	if _, err := c.ReadRun(ctx, "", "no-such-run"); !errors.As(err, new(*connector.RunNotFoundError)) {
		t.Errorf("unknown run: %v", err)
	}
}

// Values written with a run binding carry the run id; a later run that
// overwrites some of them supersedes the first, and CheckRunBinding names
// it. Stored release values round-trip.
func TestRunBindingAndStoredValues(t *testing.T) {
	c, s := connect(t)
	d := rawDriver(t, s)
	ctx := ctxT(t)
	f := sbmFixture(t, []int{30, 30}, 0.3, 0.05, 11)
	f.load(t, d)
	p := f.projection(true)
	a, b := uniqueName(t, "bindA"), uniqueName(t, "bindB")
	deleteRuns(t, s, a, b)
	const prop = "released"
	write := func(runID string, n int, v float64) {
		run, err := c.StartRun(ctx, connector.RunRecord{RunID: runID, Command: "release", WriteProperty: prop}, 0)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]connector.NodeProps, n)
		for i := range rows {
			rows[i] = connector.NodeProps{Key: fmt.Sprint(f.Keys[i]), Props: map[string]any{prop: v}}
		}
		if _, err := c.WriteProperties(ctx, p, rows, connector.WriteOptions{BatchSize: 7, RunID: runID, BindProperty: prop}); err != nil {
			t.Fatal(err)
		}
		if err := run.Succeed(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(a, len(f.Keys), 1)
	if err := c.CheckRunBinding(ctx, p, prop, a); err != nil {
		t.Fatalf("fresh run A: %v", err)
	}
	write(b, 20, 2)
	err := c.CheckRunBinding(ctx, p, prop, a)
	var be *connector.BindingError
	if !errors.As(err, &be) || be.Others[b] != 20 || len(be.Order) != 1 {
		t.Fatalf("after B overwrote 20 nodes: %v, want a BindingError naming %s for 20 nodes", err, b)
	}
	if got, _ := c.ReadRun(ctx, "", a); got.Status != connector.StatusSuperseded || got.SupersededBy != b {
		t.Errorf("run A: status %q supersededBy %q, want superseded by %s", got.Status, got.SupersededBy, b)
	}
	if got, _ := c.ReadRun(ctx, "", b); got.Status != connector.StatusSucceeded {
		t.Errorf("run B: status %q", got.Status)
	}
	if n := query(t, d, "MATCH (n:`"+f.Label+"`) WHERE n.released_runId = $b AND n.released = 2.0 RETURN count(n)",
		map[string]any{"b": b})[0].Values[0]; n != int64(20) {
		t.Errorf("%v nodes carry B's value and id, want 20", n)
	}

	keys := make([]string, 120_001)
	grid := make([]int64, len(keys))
	for i := range keys {
		keys[i], grid[i] = fmt.Sprint("k", i), int64(i*i)-5_000_000
	}
	if err := c.StoreReleaseValues(ctx, "", a, keys, grid); err != nil {
		t.Fatal(err)
	}
	if err := c.StoreReleaseValues(ctx, "", a, keys, grid); err != nil { // idempotent
		t.Fatal(err)
	}
	k2, g2, err := c.LoadReleaseValues(ctx, "", a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(k2, keys) || !reflect.DeepEqual(g2, grid) {
		t.Fatal("stored release values differ when loaded")
	}
	if got, _ := c.ReadRun(ctx, "", a); !got.ValuesStored {
		t.Error("run record does not say its values are stored")
	}
	if _, _, err := c.LoadReleaseValues(ctx, "", b); !errors.As(err, new(*connector.DataError)) {
		t.Errorf("no stored values: %v", err)
	}
}
