package job_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job/jobtest"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"

	. "github.com/graphcloak/graphcloak/job"
)

const (
	testScope = "building-7"
	testEpoch = "2026-11-25T10:00"
	lease     = time.Minute
)

// fixture is one epoch's release against a jobtest.Memory: a 3×3 grid with
// readings, ε = 1, δ = 1e-6, and a budget of ε = 10, δ = 1e-5.
type fixture struct {
	t     *testing.T
	now   time.Time
	mem   *jobtest.Memory
	graph *laplacian.Graph
}

func newFixture(t *testing.T) *fixture {
	g, err := laplacian.Grid(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, now: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), graph: g}
	f.mem = jobtest.NewMemory(func() time.Time { return f.now }, testScope, privacy.Budget{Epsilon: 10, Delta: 1e-5})
	return f
}

func (f *fixture) spec(runID string) ReleaseSpec {
	return ReleaseSpec{RunID: runID, Graph: "grid", ValuesFrom: "csv:-", Neo4j: true, Database: "neo4j",
		Projection: connector.Projection{NodeKeyProperty: "roomId"}, WriteProperty: "v",
		Ledger: "memory", LedgerKind: "neo4j", Scope: testScope, Epoch: testEpoch,
		Tau: 1, Alpha: 1, Epsilon: 1, Delta: 1e-6, Mechanism: privacy.MechanismDefault, Noise: privacy.CryptoNoise(),
		Software: "test", Lease: lease, Wait: 0}
}

func (f *fixture) env() Env {
	return Env{Backend: f.mem, Ledger: f.mem, Now: func() time.Time { return f.now },
		Load: func(context.Context) (*Input, error) {
			y := make([]float64, f.graph.N())
			for i := range y {
				y[i] = float64(i * i)
			}
			return &Input{Graph: f.graph, Readings: y}, nil
		},
		Sleep: func(context.Context, time.Duration) error { f.now = f.now.Add(PollInterval); return nil }}
}

// release plans and executes one release run.
func (f *fixture) release(runID string) (*ReleaseSummary, error) {
	p, err := PlanRelease(context.Background(), f.spec(runID), f.env())
	if err != nil {
		return nil, err
	}
	return Execute(context.Background(), p)
}

// nodeDigest is the digest of the values on the nodes, as a reader
// recomputes it from what it reads (privacy.ValuesDigest on the grid of
// the run's metadata), and the run they are bound to.
func (f *fixture) nodeDigest(exponent int) (digest, boundTo string) {
	keys := make([]string, f.graph.N())
	grid := make([]int64, f.graph.N())
	for i := range keys {
		keys[i] = f.graph.Key(i)
		n := f.mem.Node(keys[i])
		v, _ := n["v"].(float64)
		grid[i] = int64(math.Round(math.Ldexp(v, exponent)))
		id, _ := n["v_runId"].(string)
		if i > 0 && id != boundTo {
			return "", "several runs"
		}
		boundTo = id
	}
	return privacy.ValuesDigest(keys, grid), boundTo
}

// restart is the next process after a crash: the crash cleared, the
// dead run's lease expired.
func (f *fixture) restart() {
	f.mem.Restart()
	f.now = f.now.Add(2 * lease)
}

func (f *fixture) run(id string) *connector.RunRecord {
	for _, r := range f.mem.Runs() {
		if r.RunID == id {
			return &r
		}
	}
	return nil
}

// A release without failures takes a fixed sequence of steps, the
// charge before any value is stored and the values stored before the
// first node is written, and publishes: one charge, every node bound to
// the run holding the values whose digest the record carries.
func TestExecutePublishes(t *testing.T) {
	f := newFixture(t)
	sum, err := f.release("r1")
	if err != nil {
		t.Fatal(err)
	}
	steps := f.mem.Steps()
	order := map[string]int{}
	for i, s := range steps {
		if _, ok := order[s]; !ok {
			order[s] = i
		}
	}
	for _, pair := range [][2]string{{"claim outputs", "start run"}, {"start run", "ledger charge"}, {"ledger charge", "update run"},
		{"update run", "store values"}, {"store values", "write node " + f.graph.Key(0)}, {"write node " + f.graph.Key(f.graph.N()-1), "succeed run"}} {
		if order[pair[0]] >= order[pair[1]] {
			t.Errorf("%q (step %d) not before %q (step %d): %v", pair[0], order[pair[0]], pair[1], order[pair[1]], steps)
		}
	}
	if st, err := f.mem.State(testScope, testEpoch); err != nil || st != StatePublished {
		t.Fatalf("state %v, %v; want published", st, err)
	}
	rec := f.run("r1")
	meta := releaseMeta(t, rec)
	if d, id := f.nodeDigest(meta.GridExponent); d != rec.ValuesDigest || id != "r1" {
		t.Errorf("nodes: digest %s bound to %s; record %s", d, id, rec.ValuesDigest)
	}
	if f.mem.Charges() != 1 || sum.RunID != "r1" || sum.NodePropertiesWritten != f.graph.N() || sum.RhoSpent <= 0 {
		t.Errorf("charges %d, summary %+v", f.mem.Charges(), sum)
	}
}

// Crash at every step of a release — as a killed process (nothing more
// recorded) and as a failed step (the failure recorded) — then, once
// the dead run's lease has expired, run the release of the epoch again
// with a fresh plan. After the crash the store is in one of the
// documented states (State checks their invariants); the re-run reaches
// the state's documented end: published with one charge (untouched,
// claimed), published with exactly the stored values and no second
// charge or draw (stored), nothing to do (published), or refused with
// exit 7 and no second draw (charged, not stored).
func TestCrashAtEveryStep(t *testing.T) {
	clean := newFixture(t)
	if _, err := clean.release("r1"); err != nil {
		t.Fatal(err)
	}
	total := len(clean.mem.Steps())
	seen := map[State]int{}
	for _, kill := range []bool{true, false} {
		for k := 1; k <= total; k++ {
			name := fmt.Sprintf("kill=%v/step %d (%s)", kill, k, clean.mem.Steps()[k-1])
			t.Run(name, func(t *testing.T) {
				seen[crashThenRerun(t, k, kill)]++
			})
		}
	}
	for _, st := range []State{StateUntouched, StateClaimed, StateCharged, StateStored, StatePublished} {
		if seen[st] == 0 {
			t.Errorf("no crash point left the store %v: %v", st, seen)
		}
	}
}

func crashThenRerun(t *testing.T, k int, kill bool) State {
	f := newFixture(t)
	f.mem.CrashAt, f.mem.Kill = k, kill
	_, err := f.release("r1")
	st, serr := f.mem.State(testScope, testEpoch)
	if serr != nil {
		t.Fatalf("after the crash: %v", serr)
	}
	if err == nil && st != StatePublished {
		t.Fatalf("no error reported, state %v", st)
	}
	var digest string
	if r := f.run("r1"); r != nil {
		digest = r.ValuesDigest
	}
	f.restart()
	sum, err := f.release("r2")
	after, serr := f.mem.State(testScope, testEpoch)
	if serr != nil {
		t.Fatalf("after the re-run: %v", serr)
	}
	if n := f.mem.Charges(); n > 1 || (st >= StateCharged && n != 1) {
		t.Fatalf("state %v: %d charges after the re-run", st, n)
	}
	switch st {
	case StateCharged:
		if errkind.Of(err) != errkind.Charged || !errors.As(err, new(*ChargedError)) || after != StateCharged {
			t.Fatalf("charged, not stored: re-run %v (kind %v), state %v; want exit 7, unchanged", err, errkind.Of(err), after)
		}
		return st
	case StateUntouched, StateClaimed:
		if err != nil || sum.Resumed || sum.AlreadyPublished || f.mem.Charges() != 1 {
			t.Fatalf("%v: re-run %v, %+v; want a fresh release", st, err, sum)
		}
		digest = f.run("r2").ValuesDigest
	case StateStored:
		if err != nil || !sum.Resumed || sum.RunID != "r1" {
			t.Fatalf("stored: re-run %v, %+v; want r1 resumed", err, sum)
		}
	case StatePublished:
		if err != nil || !sum.AlreadyPublished {
			t.Fatalf("published: re-run %v, %+v; want nothing to do", err, sum)
		}
	}
	if after != StatePublished {
		t.Fatalf("%v: state %v after the re-run, want published", st, after)
	}
	pub := f.run(sum.RunID)
	if d, id := f.nodeDigest(releaseMeta(t, pub).GridExponent); d != digest || id != pub.RunID {
		t.Fatalf("%v: nodes hold digest %s bound to %s; want %s (the values first stored) bound to %s", st, d, id, digest, pub.RunID)
	}
	return st
}

func releaseMeta(t *testing.T, rec *connector.RunRecord) privacy.ReleaseMeta {
	t.Helper()
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(rec.ReleaseMeta), &meta); err != nil {
		t.Fatalf("run %s: release metadata: %v", rec.RunID, err)
	}
	return meta
}
