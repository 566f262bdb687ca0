package sensor

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// twoValues reports the order env once with each of two readings through
// two sensors (names of one odometer) and returns how many succeeded: 1
// when the odometer holds, 2 when the second reading was reported under
// the same noise (the difference of the reports is the difference of the
// readings).
func twoValues(t *testing.T, a, b *Sensor, env []byte) int {
	t.Helper()
	seen := map[Report]bool{} // distinct reports: a retry returns the recorded one
	for i, s := range []*Sensor{a, b} {
		rep, err := s.Report(env, 20+float64(i))
		switch {
		case err == nil:
			seen[rep] = true
		case !errors.Is(err, ErrAlreadyReported) && !errors.Is(err, ErrOdometer):
			t.Fatalf("report %d: %v", i, err)
		}
	}
	return len(seen)
}

// A deleted odometer is not an unused sensor: the sensor refuses to report
// until it is created again (InitOdometer, with the restore barrier).
func TestOdometerDeleted(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	s := r.sensor("n1", openPolicy())
	if _, err := s.Report(env, 20); err != nil {
		t.Fatal(err)
	}
	os.Remove(s.Odometer)
	_, err := s.Report(env, 21)
	var oe *OdometerError
	if !errors.As(err, &oe) || !oe.Missing {
		t.Fatalf("deleted odometer: %v, want a missing odometer refused", err)
	}
	// Created again after the loss: the barrier refuses the old order.
	if err := InitOdometer(s.Odometer, "n1", r.now, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report(env, 21); !errors.Is(err, ErrRestored) {
		t.Errorf("after init --restored: %v, want ErrRestored", err)
	}
	if err := InitOdometer(s.Odometer, "n1", r.now, false); err == nil {
		t.Errorf("InitOdometer overwrote an odometer")
	}
}

// A symbolic link is followed: the file it names records the report (the
// save does not replace the link), and the file's other name sees it.
func TestOdometerSymlink(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	real := r.sensor("n1", openPolicy())
	link := *real
	link.Odometer = filepath.Join(r.dir, "link.odometer")
	if err := os.Symlink(real.Odometer, link.Odometer); err != nil {
		t.Fatal(err)
	}
	if n := twoValues(t, &link, real, env); n != 1 {
		t.Errorf("through a symlink then the file: %d reports of two readings", n)
	}
	if st, err := os.Lstat(link.Odometer); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	od, err := loadOdometer(real.Odometer, "n1")
	if err != nil || len(od.Entries) != 1 {
		t.Errorf("the file has %v entries (%v), want 1", od, err)
	}
}

// A relative path names the file relative to the working directory: from
// elsewhere it names no odometer (refused, not a fresh one), or the same
// file by another route (one report).
func TestOdometerRelativePath(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	abs := r.sensor("n1", openPolicy())
	sub := filepath.Join(r.dir, "sub")
	os.Mkdir(sub, 0o700)
	t.Chdir(sub)
	rel := *abs
	rel.Odometer = "n1.odometer" // from sub: no such file
	if _, err := rel.Report(env, 20); !errors.Is(err, ErrOdometer) {
		t.Errorf("a relative path naming no file: %v, want refused", err)
	}
	rel.Odometer = "../n1.odometer"
	if n := twoValues(t, &rel, abs, env); n != 1 {
		t.Errorf("../n1.odometer then the absolute path: %d reports of two readings", n)
	}
}

// A hard link would fork the odometer at the first save: refused.
func TestOdometerHardLinkRefused(t *testing.T) {
	r := newRig(t)
	env := r.sign(testOrder())
	s := r.sensor("n1", openPolicy())
	other := *s
	other.Odometer = filepath.Join(r.dir, "hard.odometer")
	if err := os.Link(s.Odometer, other.Odometer); err != nil {
		t.Skip(err)
	}
	if n := twoValues(t, s, &other, env); n != 0 {
		t.Errorf("a hard-linked odometer: %d reports, want none", n)
	}
}

// Two sensor processes through two names of one odometer (a symlink and
// the file), at the same time: one report of the two readings, in every
// one of 10 trials.
func TestOdometerTwoProcessesTwoNames(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	r := newRig(t)
	double := 0
	for trial := 0; trial < 10; trial++ {
		o := orderFor(trial)
		envPath := filepath.Join(r.dir, fmt.Sprintf("order-%d", trial))
		os.WriteFile(envPath, r.sign(o), 0o600)
		node := fmt.Sprintf("n%d", 1+trial%4)
		s := r.sensor(node, openPolicy())
		link := filepath.Join(r.dir, fmt.Sprintf("link-%d", trial))
		if err := os.Symlink(s.Odometer, link); err != nil {
			t.Fatal(err)
		}
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for i, name := range []string{s.Odometer, link} {
			cmd := exec.Command(exe, "-test.run=^TestOdometerHelperProcess$")
			cmd.Env = append(os.Environ(), "GRAPHCLOAK_ODOMETER_HELPER=1", "HELPER_ORDER="+envPath, "HELPER_ODOMETER="+name,
				"HELPER_NODE="+node, "HELPER_VALUE="+strconv.Itoa(20+i), "HELPER_NOW="+r.now.Format(time.RFC3339Nano),
				"HELPER_PUB="+hexOf(r.priv.Public().(ed25519.PublicKey)))
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		reports := map[string]bool{} // distinct reports: a retry returns the recorded one
		for i, cmd := range cmds {
			cmd.Wait()
			switch res := outs[i].String(); {
			case strings.Contains(res, "REPORTED"):
				reports[res] = true
			case strings.Contains(res, "REFUSED"):
			default:
				t.Fatalf("helper: %s", res)
			}
		}
		if len(reports) != 1 {
			double++
		}
	}
	if double != 0 {
		t.Errorf("%d of 10 trials reported both readings (or none)", double)
	}
}

// TestOdometerHelperProcess is one sensor process of
// TestOdometerTwoProcessesTwoNames.
func TestOdometerHelperProcess(t *testing.T) {
	if os.Getenv("GRAPHCLOAK_ODOMETER_HELPER") != "1" {
		return
	}
	env, _ := os.ReadFile(os.Getenv("HELPER_ORDER"))
	now, _ := time.Parse(time.RFC3339Nano, os.Getenv("HELPER_NOW"))
	pub, _ := hex.DecodeString(os.Getenv("HELPER_PUB"))
	v, _ := strconv.Atoi(os.Getenv("HELPER_VALUE"))
	node := os.Getenv("HELPER_NODE")
	s := &Sensor{Coordinator: pub, Node: node, Key: Key(SensorKey(testMaster, node)), Policy: openPolicy(),
		Odometer: os.Getenv("HELPER_ODOMETER"), Now: func() time.Time { return now }}
	rep, err := s.Report(env, float64(v))
	switch {
	case err == nil:
		fmt.Println("REPORTED", rep.Grid, rep.MAC)
	case errors.Is(err, ErrAlreadyReported):
		fmt.Println("REFUSED")
	default:
		fmt.Println("ERROR", err)
	}
	os.Exit(0)
}

// A restored odometer: without the barrier, the order answered after the
// backup would be answered again with another reading (the limit the
// barrier exists for); with InitOdometer(restored) the order is refused,
// the day counts as spent, and the next day's orders are answered.
func TestOdometerRestore(t *testing.T) {
	r := newRig(t)
	o := testOrder()
	env := r.sign(o)
	s := r.sensor("n1", openPolicy())
	backup, _ := os.ReadFile(s.Odometer)
	if _, err := s.Report(env, 20); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.Odometer, backup, 0o600) // restored from the backup
	r.now = r.now.Add(time.Minute)
	if err := InitOdometer(s.Odometer, "n1", r.now, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Report(env, 21); !errors.Is(err, ErrRestored) {
		t.Errorf("the order answered before the restore: %v, want ErrRestored", err)
	}
	same := orderFor(5) // a new order of the same day, window after the restore
	same.NotBefore = r.now
	same.NotAfter = r.now.Add(time.Hour)
	r.now = r.now.Add(time.Second)
	if _, err := s.Report(r.sign(same), 21); !errors.Is(err, ErrPolicy) {
		t.Errorf("the restore's day: %v, want the daily cap (spending unknown)", err)
	}
	next := orderFor(6)
	next.NotBefore, next.NotAfter = o.NotBefore.Add(24*time.Hour), o.NotAfter.Add(24*time.Hour)
	r.now = next.NotBefore.Add(time.Minute)
	if _, err := s.Report(r.sign(next), 21); err != nil {
		t.Errorf("the next day: %v", err)
	}
	data, _ := os.ReadFile(s.Odometer)
	var od odometer
	if json.Unmarshal(data, &od) != nil || od.RefuseBefore.IsZero() || len(od.Entries) != 1 {
		t.Errorf("odometer after restore: %s", data)
	}
}
