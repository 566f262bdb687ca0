package stores

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/sensor"
)

// flagOf names a parameter as a command does by default ("--" + name):
// the refusals below must name what the coordinator typed.
func flagOf(p errkind.Param) string { return "--" + string(p) }

// TestEpochInputsCheck: each input an epoch cannot be opened from is
// refused with its kind and names its parameter; a complete set passes.
func TestEpochInputsCheck(t *testing.T) {
	ok := EpochInputs{Graph: "karate", Out: "order.json", SigningKey: "coord.key", Epoch: "2026-11-27", ValidFor: time.Hour}
	for _, c := range []struct {
		name string
		edit func(*EpochInputs)
		kind errkind.Kind
		text string
	}{
		{"complete", func(*EpochInputs) {}, errkind.Internal, ""},
		{"no order file", func(in *EpochInputs) { in.Out = "" }, errkind.Usage, "--out FILE is required"},
		{"order to stdout", func(in *EpochInputs) { in.Out = "-" }, errkind.Usage, "--out FILE is required"},
		{"no signing key", func(in *EpochInputs) { in.SigningKey = "" }, errkind.Usage, "--signing-key FILE is required (keygen --signing writes one)"},
		{"no epoch", func(in *EpochInputs) { in.Epoch = "" }, errkind.Usage, "--epoch is required"},
		{"window under 1s", func(in *EpochInputs) { in.ValidFor = time.Millisecond }, errkind.BadInput, "--valid-for must be between 1s and 366 days"},
		{"window over a year", func(in *EpochInputs) { in.ValidFor = 367 * 24 * time.Hour }, errkind.BadInput, "--valid-for"},
		{"both Δ2 sources", func(in *EpochInputs) { in.CertificatePath, in.CachePath = "c.json", "d.json" }, errkind.Usage, "or --sensitivity-cache"},
		{"negative time budget", func(in *EpochInputs) { in.TimeBudget = -time.Second }, errkind.BadInput, "--time-budget must be ≥ 0"},
		{"fingerprint too short", func(in *EpochInputs) { in.KeyFingerprint = "abc" }, errkind.BadInput, "--key-fingerprint must be the 16 hex digits"},
		{"fingerprint upper case", func(in *EpochInputs) { in.KeyFingerprint = "0123456789ABCDEF" }, errkind.BadInput, "--key-fingerprint"},
		{"fingerprint", func(in *EpochInputs) { in.KeyFingerprint = "0123456789abcdef" }, errkind.Internal, ""},
	} {
		in := ok
		c.edit(&in)
		err := in.Check()
		if c.text == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || errkind.Of(err) != c.kind || !strings.Contains(errkind.Render(err, flagOf), c.text) {
			t.Errorf("%s: %v (kind %v), want %v naming %q", c.name, err, errkind.Of(err), c.kind, c.text)
		}
	}
}

// TestEpochInputsRequest: --epoch auto is the slot of ValidFor holding
// Now (its UTC start, the window that slot); a given epoch's window starts
// at Now to the second, or at NotBefore; the signer is the key file's and
// the nodes the list's; a bad time and a missing key are bad input.
func TestEpochInputsRequest(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "coord.key")
	if _, err := sensor.CreateSigningKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	nodes := filepath.Join(dir, "nodes.txt")
	if err := os.WriteFile(nodes, []byte("# expected\n1\n2\n\n3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 6, 41, 7, 500, time.UTC)
	in := EpochInputs{SigningKey: keyFile, Out: "order.json", Epoch: "auto", ValidFor: time.Hour, Now: now, Nodes: nodes, KeyFingerprint: "0123456789abcdef"}
	req, err := in.Request()
	if err != nil {
		t.Fatal(err)
	}
	slot := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	if req.Epoch != "2026-11-27T06:00Z" || !req.NotBefore.Equal(slot) || !req.NotAfter.Equal(slot.Add(time.Hour)) {
		t.Errorf("auto: epoch %q window %v … %v, want the 06:00 slot", req.Epoch, req.NotBefore, req.NotAfter)
	}
	want, _ := sensor.LoadSigningKey(keyFile)
	if !req.Signer.Equal(want) || req.Out != "order.json" || req.KeyFingerprint != in.KeyFingerprint ||
		strings.Join(req.Nodes, ",") != "1,2,3" || req.NodesFrom != nodes {
		t.Errorf("request %+v", req)
	}

	in.Epoch, in.Nodes = "2026-11-27", ""
	if req, err = in.Request(); err != nil || req.Epoch != "2026-11-27" || !req.NotBefore.Equal(now.Truncate(time.Second)) || req.Nodes != nil {
		t.Errorf("named epoch: %+v, %v", req, err)
	}
	in.NotBefore = "2026-11-27T08:00:00+02:00"
	if req, err = in.Request(); err != nil || !req.NotBefore.Equal(time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)) || req.NotBefore.Location() != time.UTC {
		t.Errorf("not before: %v, %v", req.NotBefore, err)
	}
	in.NotBefore = "tomorrow"
	if _, err = in.Request(); errkind.Of(err) != errkind.BadInput || !strings.Contains(errkind.Render(err, flagOf), "--not-before must be an RFC 3339 time") {
		t.Errorf("bad time: %v", err)
	}
	in.NotBefore, in.SigningKey = "", filepath.Join(dir, "missing.key")
	if _, err = in.Request(); errkind.Of(err) != errkind.BadInput {
		t.Errorf("missing key: %v (kind %v)", err, errkind.Of(err))
	}
}

// TestEpochInputsSpec: the spec is the configuration's release of the
// graph under the epoch given (its key files read apart:
// jobfiles.TestReadEpochInputs).
func TestEpochInputsSpec(t *testing.T) {
	cfg := &config.Config{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(t.TempDir(), "ledger.json"), "building-7"
	cfg.Privacy.Tau, cfg.Privacy.Alpha, cfg.Privacy.Epsilon, cfg.Privacy.Delta = 1, 1, 0.5, 1e-6
	spec := (EpochInputs{Graph: "karate", CachePath: "delta2.json"}).Spec(cfg, "2026-11-27")
	if spec.Graph != "karate" || spec.Neo4j || spec.Epoch != "2026-11-27" || spec.Scope != "building-7" || spec.Tau != 1 ||
		spec.Epsilon != 0.5 || spec.Delta != 1e-6 || spec.CachePath != "delta2.json" || spec.Software == "" {
		t.Errorf("spec %+v", spec)
	}
}
