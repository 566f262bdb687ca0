package sensor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Policy file (JSON, written at provisioning beside the sensor's key;
// keygen --master … --out-dir writes DIR/NODE.policy.json):
//
//	{"kind": "graphcloak.sensor-policy", "version": 1, "node": "room-12",
//	 "alpha": 1, "sensitivityBound": 0, "sigmaFloor": 1.98, "maxEpsilonPerDay": 4,
//	 "dayDelta": 1e-6, "maxReportsPerDay": 24, "maxValiditySeconds": 86400,
//	 "graphSha256": "", "releaseNodes": 34}
//
// Every member is required except sensitivityBound, graphSha256 and
// releaseNodes (0 and "" mean none); unknown members are refused. See Policy for what each
// means.
const (
	PolicyKind    = "graphcloak.sensor-policy"
	PolicyVersion = 1
)

// PolicyFile is a policy file's JSON.
type PolicyFile struct {
	Kind               string   `json:"kind"`
	Version            int      `json:"version"`
	Node               string   `json:"node"`
	Alpha              *float64 `json:"alpha"`
	SensitivityBound   float64  `json:"sensitivityBound,omitempty"`
	SigmaFloor         *float64 `json:"sigmaFloor"`
	MaxEpsilonPerDay   *float64 `json:"maxEpsilonPerDay"`
	DayDelta           *float64 `json:"dayDelta"`
	MaxReportsPerDay   *int     `json:"maxReportsPerDay"`
	MaxValiditySeconds *int64   `json:"maxValiditySeconds"`
	GraphSHA256        string   `json:"graphSha256,omitempty"`
	ReleaseNodes       int      `json:"releaseNodes,omitempty"`
}

// NewPolicyFile is the file of node's policy p.
func NewPolicyFile(node string, p Policy) PolicyFile {
	dd, mv := p.dayDelta(), int64(p.maxValidity()/time.Second)
	return PolicyFile{Kind: PolicyKind, Version: PolicyVersion, Node: node, Alpha: &p.Alpha, SensitivityBound: p.SensitivityBound,
		SigmaFloor: &p.SigmaFloor, MaxEpsilonPerDay: &p.MaxEpsilonPerDay, DayDelta: &dd, MaxReportsPerDay: &p.MaxReportsPerDay,
		MaxValiditySeconds: &mv, GraphSHA256: p.GraphSHA256, ReleaseNodes: p.ReleaseNodes}
}

// WritePolicy creates node's policy file at path (mode 0600, never over an
// existing file, fsynced).
func WritePolicy(path, node string, p Policy) error {
	if err := p.Check(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(NewPolicyFile(node, p), "", " ")
	if err != nil {
		return err
	}
	if err := writeExclusive(path, append(data, '\n')); err != nil {
		return fmt.Errorf("sensor: write policy %s: %w", path, err)
	}
	return nil
}

// LoadPolicy reads node's policy file: strictly (unknown or missing
// members refused), for this node, and checked (Policy.Check).
func LoadPolicy(path, node string) (Policy, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Policy{}, fmt.Errorf("%w: policy file %s does not exist", ErrNoPolicy, path)
	}
	if err != nil {
		return Policy{}, fmt.Errorf("sensor: policy %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<16))
	if err != nil {
		return Policy{}, fmt.Errorf("sensor: policy %s: %w", path, err)
	}
	var pf PolicyFile
	if err := decodeStrict(data, &pf); err != nil {
		return Policy{}, fmt.Errorf("sensor: policy %s is not a policy file: %w", path, err)
	}
	switch {
	case pf.Kind != PolicyKind || pf.Version != PolicyVersion:
		return Policy{}, fmt.Errorf("sensor: policy %s: kind %q version %d, want %q version %d", path, pf.Kind, pf.Version, PolicyKind, PolicyVersion)
	case pf.Node != node:
		return Policy{}, fmt.Errorf("sensor: policy %s is node %q's, not %q's", path, pf.Node, node)
	case pf.Alpha == nil || pf.SigmaFloor == nil || pf.MaxEpsilonPerDay == nil || pf.DayDelta == nil || pf.MaxReportsPerDay == nil || pf.MaxValiditySeconds == nil:
		return Policy{}, fmt.Errorf("%w: policy %s lacks one of alpha, sigmaFloor, maxEpsilonPerDay, dayDelta, maxReportsPerDay, maxValiditySeconds", ErrNoPolicy, path)
	case *pf.MaxValiditySeconds < 1 || *pf.MaxValiditySeconds > 1<<40:
		return Policy{}, fmt.Errorf("sensor: policy %s: maxValiditySeconds %d outside [1, 2^40]", path, *pf.MaxValiditySeconds)
	case *pf.DayDelta <= 0:
		return Policy{}, fmt.Errorf("sensor: policy %s: dayDelta %v must be in (0, 1)", path, *pf.DayDelta)
	}
	p := Policy{Alpha: *pf.Alpha, SensitivityBound: pf.SensitivityBound, SigmaFloor: *pf.SigmaFloor, MaxEpsilonPerDay: *pf.MaxEpsilonPerDay,
		DayDelta: *pf.DayDelta, MaxReportsPerDay: *pf.MaxReportsPerDay, MaxValidity: time.Duration(*pf.MaxValiditySeconds) * time.Second,
		GraphSHA256: pf.GraphSHA256, ReleaseNodes: pf.ReleaseNodes}
	if err := p.Check(); err != nil {
		return Policy{}, fmt.Errorf("sensor: policy %s: %w", path, err)
	}
	return p, nil
}
