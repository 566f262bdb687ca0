package service

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensor"
)

func flagOf(p errkind.Param) string { return "--" + string(p) }

// wantErr checks err's kind and that its text, parameters named as flags,
// holds text.
func wantErr(t *testing.T, name string, err error, kind errkind.Kind, text string) {
	t.Helper()
	if err == nil || errkind.Of(err) != kind || !strings.Contains(errkind.Render(err, flagOf), text) {
		t.Errorf("%s: %v (kind %v), want %v naming %q", name, err, errkind.Of(err), kind, text)
	}
}

// Listening.Listen refuses half a TLS pair (usage), TLS files it cannot
// read, a connection bound under 1 and an address it cannot listen on
// (bad input, each naming its parameter); otherwise it listens, and the
// listener accepts a connection.
func TestListeningListen(t *testing.T) {
	dir := t.TempDir()
	ok := Listening{Addr: "127.0.0.1:0", MaxConnections: 4, MaxPerClient: 4}
	for _, c := range []struct {
		name string
		l    Listening
		kind errkind.Kind
		text string
	}{
		{"a certificate without its key", Listening{Addr: ok.Addr, MaxConnections: 4, MaxPerClient: 4, TLSCert: "c.pem"}, errkind.Usage, "give both --tls-cert and --tls-key, or neither"},
		{"a key without its certificate", Listening{Addr: ok.Addr, MaxConnections: 4, MaxPerClient: 4, TLSKey: "k.pem"}, errkind.Usage, "give both --tls-cert and --tls-key"},
		{"unreadable TLS files", Listening{Addr: ok.Addr, MaxConnections: 4, MaxPerClient: 4, TLSCert: filepath.Join(dir, "c.pem"), TLSKey: filepath.Join(dir, "k.pem")}, errkind.BadInput, "--tls-cert/--tls-key: "},
		{"no connection", Listening{Addr: ok.Addr}, errkind.BadInput, "--max-connections must be ≥ 1, got 0"},
		{"a bad address", Listening{Addr: "127.0.0.1:-1", MaxConnections: 4, MaxPerClient: 4}, errkind.BadInput, "--listen: "},
	} {
		ln, err := c.l.Listen()
		if ln != nil {
			ln.Close()
		}
		wantErr(t, c.name, err, c.kind, c.text)
	}
	ln, err := ok.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// Collection.Check refuses a body bound or timeout that is not positive.
func TestCollectionCheck(t *testing.T) {
	if err := (&Collection{MaxBody: 1, BodyTimeout: time.Second}).Check(); err != nil {
		t.Errorf("positive limits: %v", err)
	}
	wantErr(t, "no body", (&Collection{BodyTimeout: time.Second}).Check(), errkind.BadInput, "--max-body must be > 0, got 0")
	wantErr(t, "no time", (&Collection{MaxBody: 1, BodyTimeout: -time.Second}).Check(), errkind.BadInput, "--body-timeout must be > 0, got -1s")
}

// Epochs.ReadInputs parses the schedule, reads the signing key and makes
// the journal's directory, in that order; each failure is bad input and
// leaves what comes after it untouched.
func TestEpochsReadInputs(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "coord.key")
	r, err := sensor.CreateSigningKeyFile(key)
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "journal", "epochs")
	e := &Epochs{Collection: Collection{Journal: journal}}
	wantErr(t, "a bad schedule", e.ReadInputs("every hour", key), errkind.BadInput, "--schedule: ")
	wantErr(t, "a missing key", e.ReadInputs("@every 1h", filepath.Join(dir, "missing.key")), errkind.BadInput, "missing.key")
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("a refused input made the journal: %v", err)
	}
	if err := e.ReadInputs("@every 1h", key); err != nil {
		t.Fatal(err)
	}
	want, _ := sensor.LoadSigningKey(key)
	if e.Schedule.String() != "@every 1h" || !e.Open.Signer.Equal(want) || r.PublicKeyPath != key+".pub" {
		t.Errorf("schedule %q, signer %x", e.Schedule, e.Open.Signer)
	}
	if fi, err := os.Stat(journal); err != nil || !fi.IsDir() {
		t.Errorf("journal: %v", err)
	}
	e.Journal = filepath.Join(key, "journal") // under a file
	wantErr(t, "a journal under a file", e.ReadInputs("@every 1h", key), errkind.BadInput, "--journal: ")
}
