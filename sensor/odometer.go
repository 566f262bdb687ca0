package sensor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Odometer file (JSON, mode 0600, replaced atomically and fsynced before a
// report is returned):
//
//	{"kind": "graphcloak.sensor-odometer", "version": 1, "node": "n1",
//	 "created": "2026-11-27T05:00:00Z", "refuseBefore": "…" (after a restore only),
//	 "entries": [{"releaseId": …, "scope": …, "epoch": …, "day": "2026-11-27",
//	              "rho": 0.018, "grid": 1234, "at": "2026-11-27T06:01:02Z",
//	              "orderSha256": "…", "mac": "…", "reportVersion": 2}, …]}
//
// One entry per epoch reported, kept forever: a sensor never reports twice
// for one (scope, epoch) or one release id, and answers the byte-identical
// order (orderSha256) again with the recorded report (the entry and mac
// are that report), never with a new draw. It holds only public data (the
// grid and MAC already sent, the order's digest). A clock before the
// latest "at" is refused (time only moves forward). It is created when the sensor is
// provisioned (InitOdometer; keygen --master … --out-dir) and a missing
// file is refused: a lost odometer is not an unused sensor. A file that
// does not parse is refused (fail closed), as is one of another node, a
// hard-linked one (two names would fork it at the first save) and one that
// is not a regular file; a symbolic link is followed and the file it
// names is the one locked and replaced.
//
// refuseBefore is the restore barrier (InitOdometer with restored set):
// every order whose window began before it is refused, and its UTC day is
// taken as spent in full. A report at time t needs notBefore ≤ t, so any
// report the restore may have lost (t < refuseBefore) is of an order that
// is now refused.
const (
	odometerKind    = "graphcloak.sensor-odometer"
	odometerVersion = 1
)

type odometer struct {
	Kind         string          `json:"kind"`
	Version      int             `json:"version"`
	Node         string          `json:"node"`
	Created      time.Time       `json:"created,omitzero"`
	RefuseBefore time.Time       `json:"refuseBefore,omitzero"`
	Entries      []odometerEntry `json:"entries"`
}

type odometerEntry struct {
	ReleaseID string    `json:"releaseId"`
	Scope     string    `json:"scope"`
	Epoch     string    `json:"epoch"`
	Day       string    `json:"day"`
	Rho       float64   `json:"rho"`
	Grid      int64     `json:"grid"`
	At        time.Time `json:"at"`
	// OrderSHA256 is the hex SHA-256 of the signed order's bytes and MAC
	// the report's: with the entry's other members they are the report,
	// returned again for the byte-identical order (a retry). Entries
	// written before them have neither and are never retried.
	OrderSHA256 string `json:"orderSha256,omitempty"`
	MAC         string `json:"mac,omitempty"`
	// ReportVersion is the version of the report recorded (absent: 1,
	// whose MAC does not cover orderSha256): a retry returns that report
	// as it was, and collectors refuse a version 1 report.
	ReportVersion int `json:"reportVersion,omitempty"`
}

// lockedOdometer is an odometer read under its file's lock.
type lockedOdometer struct {
	od     *odometer
	real   string // the resolved path: what is replaced on save
	unlock func()
}

// resolveOdometer returns the absolute path of the regular file path
// names, symbolic links followed. A missing file is an *OdometerError
// with Missing set.
func resolveOdometer(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &OdometerError{Path: path, Reason: "cannot be resolved", Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &OdometerError{Path: path, Missing: true, Reason: "does not exist: a sensor without its odometer does not report " +
			"(it is created when the sensor is provisioned; after a loss or a restore from a backup run graphcloak sensor init --restored)"}
	}
	if err != nil {
		return "", &OdometerError{Path: path, Reason: "cannot be resolved", Err: err}
	}
	st, err := os.Lstat(real)
	if err != nil {
		return "", &OdometerError{Path: path, Reason: "cannot be read", Err: err}
	}
	if !st.Mode().IsRegular() {
		return "", &OdometerError{Path: path, Corrupt: true, Reason: fmt.Sprintf("names %s, which is not a regular file", real)}
	}
	return real, nil
}

// openOdometer resolves path, locks the file it names (the file itself,
// whatever name reached it) and reads it.
func openOdometer(path, node string) (*lockedOdometer, error) {
	real, err := resolveOdometer(path)
	if err != nil {
		return nil, err
	}
	f, unlock, err := lockOdometerFile(real)
	if err != nil {
		var oe *OdometerError
		if errors.As(err, &oe) {
			oe.Path = path
			return nil, oe
		}
		return nil, &OdometerError{Path: path, Reason: "cannot be locked", Err: err}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxOdometerBytes+1))
	if err == nil && len(data) > maxOdometerBytes {
		err = fmt.Errorf("larger than %d bytes", maxOdometerBytes)
	}
	if err != nil {
		unlock()
		return nil, &OdometerError{Path: path, Reason: "cannot be read", Err: err}
	}
	od, err := parseOdometer(path, node, data)
	if err != nil {
		unlock()
		return nil, err
	}
	return &lockedOdometer{od: od, real: real, unlock: unlock}, nil
}

// maxOdometerBytes bounds an odometer file (about 150 000 entries).
const maxOdometerBytes = 32 << 20

func parseOdometer(path, node string, data []byte) (*odometer, error) {
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
		if e.ReleaseID == "" || e.Scope == "" || e.Epoch == "" || len(e.Day) != len(time.DateOnly) || !(e.Rho >= 0) ||
			(e.OrderSHA256 == "") != (e.MAC == "") || (e.MAC != "" && !(isHex256(e.OrderSHA256) && isHex256(e.MAC))) ||
			e.ReportVersion < 0 || e.ReportVersion > ReportVersion || (e.ReportVersion > 1 && e.MAC == "") {
			return nil, &OdometerError{Path: path, Corrupt: true, Reason: fmt.Sprintf("is corrupted: entry %d is incomplete", i)}
		}
	}
	return &od, nil
}

// InitOdometer creates node's odometer at path (mode 0600, fsynced with
// its directory), never over an existing file: what provisioning does.
//
// With restored set it is the first thing to run after an odometer was
// restored from a backup or lost: it sets the restore barrier to now (an
// existing file of node keeps its entries; a missing one is created), so
// that no order whose window began before now is answered and now's UTC
// day counts as spent in full. Without the barrier a restored odometer
// could answer again, with the same noise, an order it answered after the
// backup was taken.
func InitOdometer(path, node string, now time.Time, restored bool) error {
	if node == "" {
		return errors.New("sensor: init odometer: no node key")
	}
	now = now.UTC()
	if restored {
		lo, err := openOdometer(path, node)
		var oe *OdometerError
		switch {
		case errors.As(err, &oe) && oe.Missing:
		case err != nil:
			return err
		default:
			defer lo.unlock()
			if now.After(lo.od.RefuseBefore) { // a barrier never moves back
				lo.od.RefuseBefore = now
			}
			return lo.od.save(lo.real)
		}
	}
	od := &odometer{Kind: odometerKind, Version: odometerVersion, Node: node, Created: now, Entries: []odometerEntry{}}
	if restored {
		od.RefuseBefore = now
	}
	data, err := json.MarshalIndent(od, "", " ")
	if err != nil {
		return err
	}
	if err := writeExclusive(path, append(data, '\n')); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &OdometerError{Path: path, Reason: "exists already: an odometer is created once (after a restore from a backup use --restored)", Err: err}
		}
		return &OdometerError{Path: path, Reason: "cannot be created", Err: err}
	}
	return nil
}

func writeExclusive(path string, data []byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	return syncDirOf(path)
}

func syncDirOf(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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

// last returns the time of the latest entry (zero if none).
func (od *odometer) last() time.Time {
	var t time.Time
	for _, e := range od.Entries {
		if e.At.After(t) {
			t = e.At
		}
	}
	return t
}

// admit refuses, at now, a clock behind the latest entry (ErrClockBehind),
// an order whose window began before the restore barrier (ErrRestored)
// and an order of a recorded release id, or scope and epoch
// (ErrAlreadyReported: recorded tells a retry from the rest).
func (od *odometer) admit(o Order, now time.Time) error {
	if last := od.last(); now.Before(last) {
		return fmt.Errorf("%w: the clock says %s, the odometer's last report was at %s", ErrClockBehind,
			now.UTC().Format(time.RFC3339), last.Format(time.RFC3339))
	}
	if o.NotBefore.Before(od.RefuseBefore) {
		return fmt.Errorf("%w: the order's window began at %s, the odometer was restored at %s",
			ErrRestored, o.NotBefore.UTC().Format(time.RFC3339), od.RefuseBefore.Format(time.RFC3339))
	}
	if e := od.find(o); e != nil {
		return fmt.Errorf("%w: scope %q epoch %q (release %s) was reported at %s; a sensor reports once per epoch, "+
			"and again only the same report for the byte-identical order",
			ErrAlreadyReported, e.Scope, e.Epoch, e.ReleaseID, e.At.Format(time.RFC3339))
	}
	return nil
}

// recorded returns the report recorded for the order whose signed bytes
// have SHA-256 digest (hex), rebuilt from its entry: no noise is drawn
// and no reading read.
func (od *odometer) recorded(o Order, digest string) (Report, bool) {
	e := od.find(o)
	if e == nil || e.OrderSHA256 == "" || e.OrderSHA256 != digest {
		return Report{}, false
	}
	rep := Report{Kind: ReportKind, Version: max(e.ReportVersion, 1), Node: od.Node, Scope: e.Scope, Epoch: e.Epoch, ReleaseID: e.ReleaseID,
		Grid: e.Grid, Value: math.Ldexp(float64(e.Grid), -o.Sampler.GridExponent), MAC: e.MAC}
	if rep.Version >= 2 {
		rep.OrderSHA256 = e.OrderSHA256
	}
	return rep, true
}

func isHex256(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && s == hex.EncodeToString(b)
}

// spent returns the total ρ and the number of reports of day; +Inf on
// the day of the restore barrier, whose spending is unknown.
func (od *odometer) spent(day string) (float64, int) {
	if !od.RefuseBefore.IsZero() && Day(od.RefuseBefore) == day {
		return math.Inf(1), 0
	}
	var s float64
	n := 0
	for _, e := range od.Entries {
		if e.Day == day {
			s += e.Rho
			n++
		}
	}
	return s, n
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
	return syncDirOf(path)
}
