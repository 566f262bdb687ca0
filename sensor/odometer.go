package sensor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Odometer file (JSON, mode 0600, replaced atomically and fsynced before a
// report is returned):
//
//	{"kind": "graphcloak.sensor-odometer", "version": 1, "node": "n1",
//	 "entries": [{"releaseId": …, "scope": …, "epoch": …, "day": "2026-11-27",
//	              "rho": 0.018, "grid": 1234, "at": "2026-11-27T06:01:02Z"}, …]}
//
// One entry per epoch reported, kept forever: a sensor never reports twice
// for one (scope, epoch) or one release id. It holds only public data (the
// grid is the noisy value already sent). A missing file is an unused
// sensor; a file that does not parse is refused (fail closed), as is one
// of another node.
const (
	odometerKind    = "graphcloak.sensor-odometer"
	odometerVersion = 1
)

type odometer struct {
	Kind    string          `json:"kind"`
	Version int             `json:"version"`
	Node    string          `json:"node"`
	Entries []odometerEntry `json:"entries"`
}

type odometerEntry struct {
	ReleaseID string    `json:"releaseId"`
	Scope     string    `json:"scope"`
	Epoch     string    `json:"epoch"`
	Day       string    `json:"day"`
	Rho       float64   `json:"rho"`
	Grid      int64     `json:"grid"`
	At        time.Time `json:"at"`
}

func loadOdometer(path, node string) (*odometer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &odometer{Kind: odometerKind, Version: odometerVersion, Node: node}, nil
	}
	if err != nil {
		return nil, &OdometerError{Path: path, Reason: "cannot be read", Err: err}
	}
	var od odometer
	if err := decodeStrict(bytes.TrimSpace(data), &od); err != nil {
		return nil, &OdometerError{Path: path, Corrupt: true, Reason: "is corrupted (refusing to report: it is what stops a second report per epoch)", Err: err}
	}
	if od.Kind != odometerKind || od.Version != odometerVersion {
		return nil, &OdometerError{Path: path, Corrupt: true, Reason: fmt.Sprintf("is corrupted: kind %q version %d", od.Kind, od.Version)}
	}
	if od.Node != node {
		return nil, &OdometerError{Path: path, Corrupt: true, Reason: fmt.Sprintf("belongs to node %q, not %q (one odometer per sensor)", od.Node, node)}
	}
	for i, e := range od.Entries {
		if e.ReleaseID == "" || e.Scope == "" || e.Epoch == "" || len(e.Day) != len("2006-01-02") || !(e.Rho >= 0) {
			return nil, &OdometerError{Path: path, Corrupt: true, Reason: fmt.Sprintf("is corrupted: entry %d is incomplete", i)}
		}
	}
	return &od, nil
}

// find returns the entry of o's epoch or release id, or nil.
func (od *odometer) find(o Order) *odometerEntry {
	for i := range od.Entries {
		e := &od.Entries[i]
		if e.ReleaseID == o.ReleaseID || (e.Scope == o.Scope && e.Epoch == o.Epoch) {
			return e
		}
	}
	return nil
}

// spent returns the total ρ of day.
func (od *odometer) spent(day string) float64 {
	var s float64
	for _, e := range od.Entries {
		if e.Day == day {
			s += e.Rho
		}
	}
	return s
}

// save replaces the file at path: a temporary file in the same directory,
// written, fsynced, renamed over path, then the directory fsynced, so the
// entry survives a crash once save returns.
func (od *odometer) save(path string) error {
	data, err := json.MarshalIndent(od, "", " ")
	if err != nil {
		return &OdometerError{Path: path, Reason: "cannot be encoded", Err: err}
	}
	if err := writeSynced(path, append(data, '\n')); err != nil {
		return &OdometerError{Path: path, Reason: "cannot be written (no report was made)", Err: err}
	}
	return nil
}

func writeSynced(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
