package jobtest

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// State classifies scope's epoch as m holds it, and checks the
// invariants every documented state keeps: a charge has a run record
// (the claim comes first); stored values were charged and match the
// digest on the record; every node bound to a run holds that run's
// stored value; a published run's values are on every node it stored.
// An error means the store is in no documented state.
func (m *Memory) State(scope, epoch string) (job.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var runs []*connector.RunRecord
	for _, r := range m.runs {
		if r.Scope == scope && r.Epoch == epoch {
			runs = append(runs, r)
		}
	}
	charged := m.charged[scope+"/"+epoch]
	var stored, succeeded *connector.RunRecord
	for _, r := range runs {
		if err := m.checkRun(r, charged); err != nil {
			return 0, err
		}
		if r.ValuesStored {
			if stored != nil {
				return 0, fmt.Errorf("runs %s and %s both stored values of epoch %q", stored.RunID, r.RunID, epoch)
			}
			stored = r
		}
		if r.Status == connector.StatusSucceeded {
			succeeded = r
		}
	}
	switch {
	case len(runs) == 0 && charged:
		return 0, fmt.Errorf("epoch %q charged without a run record", epoch)
	case len(runs) == 0:
		return job.StateUntouched, nil
	case succeeded != nil:
		return job.StatePublished, nil
	case stored != nil:
		return job.StateStored, nil
	case charged:
		return job.StateCharged, nil
	}
	return job.StateClaimed, nil
}

// checkRun checks the invariants of one run record of a charged (or
// not) epoch.
func (m *Memory) checkRun(r *connector.RunRecord, charged bool) error {
	v, ok := m.values[r.RunID]
	if ok != r.ValuesStored {
		return fmt.Errorf("run %s: values stored %v, record says %v", r.RunID, ok, r.ValuesStored)
	}
	if r.Status == connector.StatusSucceeded && !ok {
		return fmt.Errorf("run %s succeeded without stored values", r.RunID)
	}
	if !ok {
		return m.checkUnbound(r.RunID)
	}
	if !charged {
		return fmt.Errorf("run %s stored values of an epoch never charged", r.RunID)
	}
	if d := privacy.ValuesDigest(v.keys, v.grid); d != r.ValuesDigest {
		return fmt.Errorf("run %s: stored values' digest %s, record says %s", r.RunID, d, r.ValuesDigest)
	}
	var meta privacy.ReleaseMeta
	if err := json.Unmarshal([]byte(r.ReleaseMeta), &meta); err != nil {
		return fmt.Errorf("run %s: release metadata unreadable: %v", r.RunID, err)
	}
	bind := connector.RunIDProperty(r.WriteProperty)
	for i, k := range v.keys {
		n := m.nodes[k]
		if id, _ := n[bind].(string); id == r.RunID && n[r.WriteProperty] != math.Ldexp(float64(v.grid[i]), -meta.GridExponent) {
			return fmt.Errorf("run %s: node %s holds %v, not its stored value", r.RunID, k, n[r.WriteProperty])
		} else if id != r.RunID && r.Status == connector.StatusSucceeded {
			return fmt.Errorf("run %s succeeded, node %s is bound to %q", r.RunID, k, id)
		}
	}
	return nil
}

// checkUnbound: a run that stored nothing wrote no node.
func (m *Memory) checkUnbound(runID string) error {
	for k, n := range m.nodes {
		for _, v := range n {
			if v == runID {
				return fmt.Errorf("node %s is bound to run %s, which stored no values", k, runID)
			}
		}
	}
	return nil
}

// AnswerState classifies scope's epoch of private answers as m holds it
// (no answer stores values: job.StateStored never occurs), and checks the
// invariants every documented state keeps: a charge has an answer's run
// record (the claim comes first); a succeeded run was charged and records
// the published community; at most one run succeeded; an answer writes no
// node. An error means the store is in no documented state.
func (m *Memory) AnswerState(scope, epoch string) (job.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	charged := m.charged[scope+"/"+epoch]
	runs, succeeded := 0, 0
	for _, r := range m.runs {
		if r.Command != "answer" || r.Scope != scope || r.Epoch != epoch {
			continue
		}
		runs++
		if r.Status != connector.StatusSucceeded {
			continue
		}
		succeeded++
		if c, _ := r.Parameters["community"].(string); !charged || c == "" || r.ReleaseID == "" {
			return 0, fmt.Errorf("run %s succeeded: charged %v, community %q, release id %q", r.RunID, charged, c, r.ReleaseID)
		}
	}
	switch {
	case len(m.nodes) > 0:
		return 0, fmt.Errorf("an answer wrote %d nodes", len(m.nodes))
	case succeeded > 1:
		return 0, fmt.Errorf("epoch %q answered by %d runs", epoch, succeeded)
	case runs == 0 && charged:
		return 0, fmt.Errorf("epoch %q charged without a run record", epoch)
	case runs == 0:
		return job.StateUntouched, nil
	case succeeded == 1:
		return job.StatePublished, nil
	case charged:
		return job.StateCharged, nil
	}
	return job.StateClaimed, nil
}
