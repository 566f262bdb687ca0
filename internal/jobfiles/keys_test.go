package jobfiles

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// TestReadAnswerKeys: the noise is keyed exactly when a noise key is
// configured; the ledger key is read only for an answer with a cache; a
// spec that fails its check or a missing key file is refused.
func TestReadAnswerKeys(t *testing.T) {
	dir := t.TempDir()
	keyFile := writeKeyFile(t, filepath.Join(dir, "k.key"))
	for _, c := range []struct {
		name               string
		noiseKey, ledger   string
		cache              string
		epsilon            float64
		keyed, sealed, bad bool
	}{
		{name: "plain", epsilon: 1},
		{name: "noise key", noiseKey: keyFile, epsilon: 1, keyed: true},
		{name: "ledger key, no cache", ledger: keyFile, epsilon: 1},
		{name: "ledger key and cache", ledger: keyFile, cache: "c.json", epsilon: 1, sealed: true},
		{name: "bad spec", epsilon: 0, bad: true},
		{name: "missing noise key", noiseKey: filepath.Join(dir, "none.key"), epsilon: 1, bad: true},
	} {
		cfg := &config.Config{}
		cfg.Privacy.KeyFile, cfg.Privacy.LedgerKeyFile = c.noiseKey, c.ledger
		spec := &job.AnswerSpec{Epsilon: c.epsilon, Tau: 1, CachePath: c.cache}
		err := ReadAnswerKeys(cfg, spec)
		if (err != nil) != c.bad {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		if c.bad {
			continue
		}
		if spec.Noise.Keyed() != c.keyed {
			t.Errorf("%s: keyed noise %v, want %v", c.name, spec.Noise.Keyed(), c.keyed)
		}
		if sealed := spec.LedgerKey.CertificateMACKey() != nil; sealed != c.sealed {
			t.Errorf("%s: ledger key read %v, want %v", c.name, sealed, c.sealed)
		}
	}
}

// TestReadEpochInputs: an epoch's spec is completed as a release's; a
// mechanism a sensor cannot draw (privacy.Mechanisms' AtSensor) is
// refused naming the mechanism, one it can is kept.
func TestReadEpochInputs(t *testing.T) {
	cfg := &config.Config{}
	cfg.Privacy.Ledger, cfg.Privacy.Scope = filepath.Join(t.TempDir(), "ledger.json"), "building-7"
	for _, c := range []struct {
		mechanism string
		refused   bool
	}{{"", false}, {"discrete", false}, {"classic", true}} {
		cfg.Privacy.Mechanism = c.mechanism
		spec := &job.ReleaseSpec{Graph: "karate", Scope: "building-7", Epoch: "2026-11-27", Tau: 1, Alpha: 1, Epsilon: 0.5, Delta: 1e-6, CachePath: "delta2.json"} // ε within classic's bound
		err := ReadEpochInputs(cfg, spec)
		if c.refused {
			if errkind.Of(err) != errkind.BadInput || !strings.Contains(errkind.Render(err, func(p errkind.Param) string { return "--" + string(p) }), "--mechanism "+c.mechanism+" is not offered in local mode") {
				t.Errorf("%q: %v", c.mechanism, err)
			}
			continue
		}
		if err != nil || spec.Ledger == "" || spec.Mechanism != privacy.MechanismDefault && c.mechanism == "" {
			t.Errorf("%q: %v, spec mechanism %v, ledger %q", c.mechanism, err, spec.Mechanism, spec.Ledger)
		}
	}
}

// writeKeyFile writes a fresh key to path and returns path.
func writeKeyFile(t *testing.T, path string) string {
	t.Helper()
	k, err := privacy.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := privacy.WriteKeyFile(path, k); err != nil {
		t.Fatal(err)
	}
	return path
}
