package jobtest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// ErrCrash is what every step of a Memory returns from its crash point
// on.
var ErrCrash = errkind.New(errkind.Unreachable, "job: memory backend crashed")

// Memory is an in-memory Backend and ledger with the semantics of the
// Neo4j ones (run records with leases and a scope claim, the output
// registry, stored values, writes bound to the run, a ledger that charges
// an epoch once), for unit tests of Execute, ExecuteLocate and
// ExecuteAnswer. It can be told to crash at
// its k-th step: that step and, when Kill is set, every later one fail
// with ErrCrash — as a killed process, which records nothing more.
type Memory struct {
	// Now is the clock of leases (required).
	Now func() time.Time
	// CrashAt, when > 0, is the step that fails; Kill makes every later
	// step fail too.
	CrashAt int
	Kill    bool

	mu      sync.Mutex
	steps   []string
	dead    bool
	runs    []*connector.RunRecord
	owners  map[string]string // property → kind
	values  map[string]memValues
	nodes   map[string]map[string]any
	budget  privacy.Budget
	rhoMax  float64
	spent   map[string]*privacy.Spend
	nCharge map[string]int  // scope → charges
	charged map[string]bool // scope/epoch
	charges int
}

type memValues struct {
	keys []string
	grid []int64
}

// NewMemory returns a Memory whose ledger holds one scope with budget b.
// It panics on an invalid budget (a test's mistake).
func NewMemory(now func() time.Time, scope string, b privacy.Budget) *Memory {
	rhoMax, err := b.Rho()
	if err != nil {
		panic(err)
	}
	return &Memory{Now: now, owners: map[string]string{}, values: map[string]memValues{}, nodes: map[string]map[string]any{},
		budget: b, rhoMax: rhoMax, spent: map[string]*privacy.Spend{scope: {}}, nCharge: map[string]int{}, charged: map[string]bool{}}
}

// step records one step named op and fails it at the crash point.
func (m *Memory) step(op string) error {
	m.steps = append(m.steps, op)
	if m.dead || len(m.steps) == m.CrashAt {
		m.dead = m.dead || m.Kill
		return fmt.Errorf("%s: %w", op, ErrCrash)
	}
	return nil
}

// Steps are the names of the steps taken so far, in order.
func (m *Memory) Steps() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.steps...)
}

// Restart clears the crash: the next process finds the state as the
// crashed one left it.
func (m *Memory) Restart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dead, m.CrashAt, m.steps = false, 0, nil
}

// Charges is the number of charges the ledger accepted.
func (m *Memory) Charges() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.charges
}

// Runs are copies of the run records, in the order they were started.
func (m *Memory) Runs() []connector.RunRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]connector.RunRecord, len(m.runs))
	for i, r := range m.runs {
		out[i] = *r
	}
	return out
}

// Stored returns the values stored under runID (nil when none).
func (m *Memory) Stored(runID string) (keys []string, grid []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.values[runID]
	return v.keys, v.grid
}

// Node returns a copy of node key's properties.
func (m *Memory) Node(key string) map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]any{}
	for k, v := range m.nodes[key] {
		out[k] = v
	}
	return out
}

// Own registers property as holding kind (another command's output, or
// an input), as an earlier run would have.
func (m *Memory) Own(property, kind string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.owners[property] = kind
}

// Charged reports whether scope's epoch was charged (privacy.ChargeLookup).
func (m *Memory) Charged(_ context.Context, scope, epoch string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("ledger charged"); err != nil {
		return false, err
	}
	return m.charged[scope+"/"+epoch], nil
}

// Balance reports scope's spend (privacy.Ledger).
func (m *Memory) Balance(_ context.Context, scope string) ([]privacy.Balance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("ledger balance"); err != nil {
		return nil, err
	}
	spent, ok := m.spent[scope]
	if !ok {
		return nil, fmt.Errorf("scope %q: %w", scope, privacy.ErrNoScope)
	}
	return []privacy.Balance{m.budget.BalanceOf(scope, m.nCharge[scope], m.rhoMax, spent)}, nil
}

// Charge charges c once (privacy.Ledger).
func (m *Memory) Charge(_ context.Context, c privacy.Charge) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("ledger charge"); err != nil {
		return err
	}
	spent, ok := m.spent[c.Scope]
	switch {
	case !ok:
		return fmt.Errorf("scope %q: %w", c.Scope, privacy.ErrNoScope)
	case m.charged[c.Scope+"/"+c.ReleaseID]:
		return fmt.Errorf("scope %q release %q: %w", c.Scope, c.ReleaseID, privacy.ErrAlreadyCharged)
	}
	if err := m.budget.Admit(m.rhoMax, c.Scope, m.nCharge[c.Scope], spent, c); err != nil {
		return err
	}
	spent.Add(c)
	m.nCharge[c.Scope]++
	m.charged[c.Scope+"/"+c.ReleaseID] = true
	m.charges++
	return nil
}

// FindRelease: the newest run of the epoch that published, else the newest.
func (m *Memory) FindRelease(_ context.Context, scope, epoch string) (*connector.RunRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("find release"); err != nil {
		return nil, err
	}
	var found *connector.RunRecord
	for _, r := range m.runs { // in start order: a later one of the same rank wins
		if r.Command == "release" && r.Scope == scope && r.Epoch == epoch && (found == nil || job.Published(r) || !job.Published(found)) {
			found = r
		}
	}
	if found == nil {
		return nil, nil
	}
	c := *found
	return &c, nil
}

// ClaimOutputs registers the claims, refusing another kind's property.
func (m *Memory) ClaimOutputs(_ context.Context, runID, _ string, cl connector.Claims) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("claim outputs"); err != nil {
		return err
	}
	for _, prop := range sortedKeys(cl.Outputs) {
		if k, ok := m.owners[prop]; ok && k != cl.Outputs[prop] {
			return &connector.OutputOwnedError{Property: prop, Writes: cl.Outputs[prop], Owner: "an earlier run", OwnerKind: k}
		}
	}
	for p, k := range cl.Outputs {
		m.owners[p] = k
	}
	for p, k := range cl.Inputs {
		if _, ok := m.owners[p]; !ok {
			m.owners[p] = k
		}
	}
	return nil
}

// StartRun marks the expired runs of rec's command and scope abandoned
// (never another scope's), claims the scope and the epoch, and records
// rec "running".
func (m *Memory) StartRun(_ context.Context, rec connector.RunRecord, lease time.Duration) (job.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("start run"); err != nil {
		return nil, err
	}
	now := m.Now()
	for _, r := range m.runs {
		if r.Status == connector.StatusRunning && !r.LeaseExpiresAt.After(now) && r.Command == rec.Command && r.Scope == rec.Scope {
			r.Status = connector.StatusAbandoned
		}
	}
	for _, r := range m.runs {
		switch {
		case r.RunID == rec.RunID:
			return nil, &connector.RunStateError{RunID: rec.RunID, Status: r.Status, Op: "start (the run id exists)"}
		case rec.Command != "release" || r.Command != "release":
		case r.Scope == rec.Scope && r.Status == connector.StatusRunning:
			return nil, &connector.ScopeBusyError{Scope: rec.Scope, Holder: r.RunID, Until: r.LeaseExpiresAt}
		case r.Scope == rec.Scope && r.Epoch == rec.Epoch && job.Published(r):
			return nil, &connector.EpochPublishedError{Scope: rec.Scope, Epoch: rec.Epoch}
		}
	}
	rec.Status, rec.Attempts, rec.StartedAt, rec.LeaseExpiresAt = connector.StatusRunning, 1, now, now.Add(lease)
	stored := rec
	m.runs = append(m.runs, &stored)
	return &memRun{m: m, rec: rec}, nil
}

// ResumeRun takes over prev unless it is live, succeeded or superseded.
func (m *Memory) ResumeRun(_ context.Context, prev *connector.RunRecord, lease time.Duration) (job.Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("resume run"); err != nil {
		return nil, err
	}
	r := m.run(prev.RunID)
	if r == nil {
		return nil, &connector.RunNotFoundError{RunID: prev.RunID}
	}
	now := m.Now()
	switch r.Status {
	case connector.StatusFailed, connector.StatusInterrupted, connector.StatusAbandoned:
	case connector.StatusRunning:
		if r.LeaseExpiresAt.After(now) {
			return nil, &connector.RunStateError{RunID: r.RunID, Status: r.Status, Op: "resume"}
		}
	default:
		return nil, &connector.RunStateError{RunID: r.RunID, Status: r.Status, Op: "resume"}
	}
	r.Status, r.Attempts, r.Error, r.LeaseExpiresAt = connector.StatusRunning, r.Attempts+1, "", now.Add(lease)
	return &memRun{m: m, rec: *r}, nil
}

// StoreValues stores the run's values.
func (m *Memory) StoreValues(_ context.Context, run job.Run, keys []string, grid []int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("store values"); err != nil {
		return err
	}
	id := run.Record().RunID
	if r := m.run(id); r == nil || r.Status != connector.StatusRunning {
		return lostLease(id, r) // taken for dead (abandoned): it stores nothing
	}
	m.values[id] = memValues{append([]string(nil), keys...), append([]int64(nil), grid...)}
	m.run(id).ValuesStored = true
	return nil
}

// LoadValues reads the run's stored values.
func (m *Memory) LoadValues(_ context.Context, run job.Run) ([]string, []int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("load values"); err != nil {
		return nil, nil, err
	}
	v, ok := m.values[run.Record().RunID]
	if !ok {
		return nil, nil, fmt.Errorf("job: run %s stored no values", run.Record().RunID)
	}
	return append([]string(nil), v.keys...), append([]int64(nil), v.grid...), nil
}

// WriteValues writes one node per step, bound to the run; a run whose id
// a node held before is superseded.
func (m *Memory) WriteValues(_ context.Context, run job.Run, keys []string, values []float64, progress func(done, total int)) (connector.WriteStats, error) {
	var st connector.WriteStats
	rec := run.Record()
	prop, bind := rec.WriteProperty, connector.RunIDProperty(rec.WriteProperty)
	for i, k := range keys {
		m.mu.Lock()
		err := m.step("write node " + k)
		if err == nil {
			n := m.nodes[k]
			if n == nil {
				n = map[string]any{}
				m.nodes[k] = n
			}
			if old, ok := n[bind].(string); ok && old != rec.RunID {
				if r := m.run(old); r != nil {
					r.Status, r.SupersededBy = connector.StatusSuperseded, rec.RunID
				}
			}
			n[prop], n[bind] = values[i], rec.RunID
		}
		m.mu.Unlock()
		if err != nil {
			return st, err
		}
		st.NodesWritten++
		st.NodePropertiesWritten++
		if progress != nil {
			progress(i+1, len(keys))
		}
	}
	return st, nil
}

// WriteNodes writes one node per step.
func (m *Memory) WriteNodes(_ context.Context, rows []connector.NodeProps, progress func(done, total int)) (connector.WriteStats, error) {
	var st connector.WriteStats
	for i, r := range rows {
		m.mu.Lock()
		err := m.step("write node " + r.Key)
		if err == nil {
			n := m.nodes[r.Key]
			if n == nil {
				n = map[string]any{}
				m.nodes[r.Key] = n
			}
			for k, v := range r.Props {
				n[k] = v
			}
		}
		m.mu.Unlock()
		if err != nil {
			return st, err
		}
		st.NodesWritten++
		st.NodePropertiesWritten += len(r.Props)
		if progress != nil {
			progress(i+1, len(rows))
		}
	}
	return st, nil
}

func (m *Memory) run(id string) *connector.RunRecord {
	for _, r := range m.runs {
		if r.RunID == id {
			return r
		}
	}
	return nil
}

// memRun is a run held by this process.
type memRun struct {
	m   *Memory
	rec connector.RunRecord
}

func (r *memRun) Record() *connector.RunRecord { return &r.rec }

func (r *memRun) Update(context.Context) error {
	return r.finish("update run", connector.StatusRunning, nil)
}
func (r *memRun) Succeed(context.Context) error {
	return r.finish("succeed run", connector.StatusSucceeded, nil)
}

func (r *memRun) Fail(_ context.Context, cause error) error {
	status := connector.StatusFailed
	if errors.Is(cause, context.Canceled) {
		status = connector.StatusInterrupted
	}
	return r.finish("fail run", status, cause)
}

// finish stores the record with status; "superseded" is kept.
func (r *memRun) finish(op, status string, cause error) error {
	m := r.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step(op); err != nil {
		return err
	}
	stored := m.run(r.rec.RunID)
	if status == connector.StatusRunning && stored.Status != connector.StatusRunning {
		return lostLease(r.rec.RunID, stored) // an update of a run taken for dead
	}
	rec := r.rec
	rec.Status, rec.SupersededBy, rec.LeaseExpiresAt, rec.Attempts = stored.Status, stored.SupersededBy, stored.LeaseExpiresAt, stored.Attempts
	rec.ValuesStored = rec.ValuesStored || stored.ValuesStored
	if rec.Status != connector.StatusSuperseded {
		rec.Status = status
	}
	if cause != nil {
		rec.Error = cause.Error()
	}
	*stored = rec
	r.rec.Status = rec.Status
	return nil
}

// lostLease is the *connector.LeaseLostError of run id, whose record is r.
func lostLease(id string, r *connector.RunRecord) error {
	if r == nil {
		return &connector.LeaseLostError{RunID: id}
	}
	return &connector.LeaseLostError{RunID: id, Status: r.Status, LeaseExpiresAt: r.LeaseExpiresAt}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
