package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// The keyed file ledger's high-water mark is bound to
// the ledger file, not to the spelling of its path, and a keyed ledger
// whose mark cannot be written refuses to charge (budget --init refuses up
// front). Everything runs through the built binary, as an operator would.

// markCLI builds the binary once per test and runs it with an isolated
// configuration in dir.
type markCLI struct {
	t   *testing.T
	bin string
	env []string
}

func newMarkCLI(t *testing.T) *markCLI {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "graphcloak")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	for _, e := range os.Environ() {
		if name, _, _ := strings.Cut(e, "="); !strings.HasPrefix(name, "GRAPHCLOAK_") && !strings.HasPrefix(name, "XDG_") && name != "HOME" {
			env = append(env, e)
		}
	}
	return &markCLI{t: t, bin: bin, env: env}
}

// run runs the binary in dir (the working directory, for relative paths)
// and returns stdout, stderr and the exit code.
func (c *markCLI) run(dir string, args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = dir, c.env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// releases returns how many releases the ledger at spelling shows for
// scope s, or the failure.
func (c *markCLI) releases(dir, ledger, key string) (int, string, int) {
	c.t.Helper()
	out, stderr, code := c.run(dir, "budget", "--ledger", ledger, "--ledger-key", key, "--scope", "s", "-o", "json")
	if code != 0 {
		return -1, stderr, code
	}
	var r struct {
		Scopes []privacy.Balance `json:"scopes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Scopes) != 1 {
		c.t.Fatalf("budget -o json: %v\n%s", err, out)
	}
	return r.Scopes[0].Releases, "", 0
}

// writeV1Ledger writes a version 1 ledger (the forgeable plain checksum)
// with scope s and no charges: what anyone who can write the ledger can
// forge.
func writeV1Ledger(t *testing.T, path string) {
	t.Helper()
	type scopeV1 struct {
		Spent    string         `json:"spent"`
		SpentRho float64        `json:"spentRho"`
		Releases map[string]any `json:"releases"`
	}
	type fileV1 struct {
		Format     string              `json:"format"`
		Version    int                 `json:"version"`
		Budget     privacy.Budget      `json:"budget"`
		RhoBudget  float64             `json:"rhoBudget"`
		Accounting string              `json:"accounting"`
		Scopes     map[string]*scopeV1 `json:"scopes"`
		Checksum   string              `json:"checksum"`
	}
	b := privacy.Budget{Epsilon: 10, Delta: 1e-5}
	rho, _ := b.Rho()
	f := fileV1{Format: "graphcloak-ledger", Version: 1, Budget: b, RhoBudget: rho, Accounting: privacy.AccountingCKS20,
		Scopes: map[string]*scopeV1{"s": {Spent: new(big.Rat).RatString(), Releases: map[string]any{}}}}
	data, _ := json.Marshal(&f)
	h := sha256.Sum256(data)
	f.Checksum = hex.EncodeToString(h[:])
	data, _ = json.MarshalIndent(&f, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// markSetup is a keyed ledger in real/ with its key in keys/, a symlink
// link → real, and karate readings.
type markSetup struct {
	root, real, link, keys, key, readings string
}

func newMarkSetup(t *testing.T, c *markCLI) markSetup {
	t.Helper()
	root := t.TempDir()
	s := markSetup{root: root, real: filepath.Join(root, "real"), link: filepath.Join(root, "link"), keys: filepath.Join(root, "keys")}
	for _, d := range []string{s.real, s.keys, filepath.Join(s.real, "sub")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(s.real, s.link); err != nil {
		t.Fatal(err)
	}
	s.key = filepath.Join(s.keys, "ledger.key")
	if _, stderr, code := c.run(root, "keygen", "--out", s.key); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, stderr)
	}
	s.readings, _ = karateReadings(t, root, false)
	return s
}

func (s markSetup) ledger() string { return filepath.Join(s.real, "ledger.json") }

func (s markSetup) init(t *testing.T, c *markCLI, ledger string) (string, int) {
	t.Helper()
	_, stderr, code := c.run(s.root, "budget", "--init", "--ledger", ledger, "--ledger-key", s.key, "--scope", "s",
		"--epsilon-total", "10", "--delta-total", "1e-5")
	return stderr, code
}

func (s markSetup) release(c *markCLI, ledger, epoch string) (string, int) {
	_, stderr, code := c.run(s.root, "release", "--graph", "karate", "--values", s.readings, "--ledger", ledger,
		"--ledger-key", s.key, "--scope", "s", "--out", filepath.Join(s.root, epoch+".json"), "--epoch", epoch,
		"--epsilon", "1", "--delta", "1e-7", "-o", "json")
	return stderr, code
}

// immutable makes dir unwritable even for root (chattr +i, as a read-only
// secret mount is; tests run as root here, for whom mode 0555 is no
// obstacle), or by mode 0555 when not root. It skips the test when
// neither is possible.
func immutable(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i %s: %v %s (no way to make a directory unwritable for root here)", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	if f, err := os.CreateTemp(dir, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skipf("chattr +i did not make %s unwritable", dir)
	}
}

// Through a symlink to the same directory, through a relative path and
// through "..", the ledger's mark is found: a rollback is refused and a
// forged version 1 file is not migrated into a fresh chain.
func TestLedgerMarkSpellings(t *testing.T) {
	c := newMarkCLI(t)
	s := newMarkSetup(t, c)
	if stderr, code := s.init(t, c, s.ledger()); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
	}
	if stderr, code := s.release(c, s.ledger(), "e1"); code != 0 {
		t.Fatalf("release e1: exit %d: %s", code, stderr)
	}
	old, _ := os.ReadFile(s.ledger())
	if stderr, code := s.release(c, s.ledger(), "e2"); code != 0 {
		t.Fatalf("release e2: exit %d: %s", code, stderr)
	}
	current, _ := os.ReadFile(s.ledger())
	if err := os.Symlink(filepath.Join(s.real, "sub"), filepath.Join(s.root, "sublink")); err != nil {
		t.Fatal(err)
	}
	spellings := []struct{ name, dir, ledger string }{
		{"as written", s.root, s.ledger()},
		{"through a symlinked directory", s.root, filepath.Join(s.link, "ledger.json")},
		{"relative", s.real, "ledger.json"},
		{"relative through the symlink", s.root, "link/ledger.json"},
		{"through .. after a symlink", s.root, s.root + "/sublink/../ledger.json"}, // not filepath.Join, which cleans ".." away
	}
	for _, sp := range spellings {
		if n, stderr, code := c.releases(sp.dir, sp.ledger, s.key); n != 2 {
			t.Fatalf("%s: the intact ledger shows %d releases (exit %d: %s), want 2", sp.name, n, code, stderr)
		}
	}
	// The rollback: an older copy put back, e2's charge gone.
	if err := os.WriteFile(s.ledger(), old, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sp := range spellings {
		if n, stderr, code := c.releases(sp.dir, sp.ledger, s.key); code != exitBadInput || !strings.Contains(stderr, "rolled back") {
			t.Errorf("%s: a rolled-back ledger read as %d releases (exit %d: %s); want exit 3 naming the rollback", sp.name, n, code, stderr)
		}
	}
	// The forgery: a version 1 file with no charges in its place, and the
	// operator runs budget --init (which migrates version 1 files).
	for _, sp := range spellings {
		writeV1Ledger(t, s.ledger())
		_, stderr, code := c.run(sp.dir, "budget", "--init", "--ledger", sp.ledger, "--ledger-key", s.key, "--scope", "s",
			"--epsilon-total", "10", "--delta-total", "1e-5")
		if code != exitBadInput || !strings.Contains(stderr, "forgery") {
			n, _, _ := c.releases(s.root, s.ledger(), s.key)
			t.Errorf("%s: budget --init over a forged version 1 file: exit %d (%s), the ledger now shows %d releases; want exit 3 naming the forgery",
				sp.name, code, stderr, n)
		}
	}
	if err := os.WriteFile(s.ledger(), current, 0o600); err != nil {
		t.Fatal(err)
	}
	if stderr, code := s.release(c, filepath.Join(s.link, "ledger.json"), "e3"); code != 0 {
		t.Fatalf("release e3 through the symlink: exit %d: %s", code, stderr)
	}
	// A copy of the ledger at another path is the same chain: an older
	// copy elsewhere is refused too (it would lose e3's charge).
	elsewhere := filepath.Join(s.root, "elsewhere.json")
	if err := os.WriteFile(elsewhere, current, 0o600); err != nil {
		t.Fatal(err)
	}
	if n, stderr, code := c.releases(s.root, elsewhere, s.key); code != exitBadInput || !strings.Contains(stderr, "rolled back") {
		t.Errorf("an older copy at another path read as %d releases (exit %d: %s); want exit 3 naming the rollback", n, code, stderr)
	}
}

// A deleted ledger whose mark survives is not recreated empty by budget
// --init, nor read as missing by a release.
func TestLedgerMarkDeletedLedger(t *testing.T) {
	c := newMarkCLI(t)
	s := newMarkSetup(t, c)
	if stderr, code := s.init(t, c, s.ledger()); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
	}
	if stderr, code := s.release(c, s.ledger(), "e1"); code != 0 {
		t.Fatalf("release e1: exit %d: %s", code, stderr)
	}
	if err := os.Remove(s.ledger()); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{s.ledger(), filepath.Join(s.link, "ledger.json")} {
		stderr, code := s.init(t, c, spelling)
		if code != exitBadInput || !strings.Contains(stderr, "deleted") {
			n, _, _ := c.releases(s.root, s.ledger(), s.key)
			t.Errorf("budget --init --ledger %s after the ledger was deleted: exit %d (%s), now %d releases; want exit 3 naming the deletion",
				spelling, code, stderr, n)
		}
		if stderr, code := s.release(c, spelling, "e2"); code != exitBadInput || !strings.Contains(stderr, "deleted") {
			t.Errorf("release --ledger %s after the ledger was deleted: exit %d (%s); want exit 3 naming the deletion", spelling, code, stderr)
		}
	}
	if _, err := os.Stat(s.ledger()); err == nil {
		t.Error("a ledger was recreated where its mark survives")
	}
}

// With the key in a directory graphcloak cannot write (a read-only secret
// mount), budget --init refuses up front (creating nothing) and a release
// is refused before anything is charged or published, naming the mark's
// directory; a rolled-back ledger is then never accepted in its stead.
func TestLedgerMarkUnwritable(t *testing.T) {
	c := newMarkCLI(t)
	s := newMarkSetup(t, c)
	immutable(t, s.keys)
	stderr, code := s.init(t, c, s.ledger())
	if code != exitBadInput || !strings.Contains(stderr, s.keys) {
		t.Errorf("budget --init with the key's directory unwritable: exit %d (%s); want exit 3 naming %s", code, stderr, s.keys)
	}
	if _, err := os.Stat(s.ledger()); err == nil {
		t.Error("a refused budget --init created the ledger")
	}
	if _, err := os.Stat(privacy.LockPath(s.ledger())); err == nil {
		t.Error("a refused budget --init left a lock file")
	}
	exec.Command("chattr", "-i", s.keys).Run()
	os.Chmod(s.keys, 0o700)
	if stderr, code := s.init(t, c, s.ledger()); code != 0 {
		t.Fatalf("budget --init: exit %d: %s", code, stderr)
	}
	if stderr, code := s.release(c, s.ledger(), "e1"); code != 0 {
		t.Fatalf("release e1: exit %d: %s", code, stderr)
	}
	old, _ := os.ReadFile(s.ledger())
	immutable(t, s.keys) // the secret is now mounted read-only
	stderr, code = s.release(c, s.ledger(), "e2")
	if code != exitBadInput || !strings.Contains(stderr, s.keys) || !strings.Contains(stderr, "high-water mark") {
		t.Errorf("release with the mark unwritable: exit %d (%s); want exit 3 naming the mark's directory %s", code, stderr, s.keys)
	}
	if _, err := os.Stat(filepath.Join(s.root, "e2.json")); err == nil {
		t.Error("a release whose mark could not be written was published")
	}
	if after, _ := os.ReadFile(s.ledger()); string(after) != string(old) {
		t.Error("a release whose mark could not be written was charged")
	}
	exec.Command("chattr", "-i", s.keys).Run()
	os.Chmod(s.keys, 0o700)
	if stderr, code := s.release(c, s.ledger(), "e2"); code != 0 {
		t.Fatalf("release e2 once the mark is writable: exit %d: %s", code, stderr)
	}
	os.WriteFile(s.ledger(), old, 0o600)
	if n, stderr, code := c.releases(s.root, s.ledger(), s.key); code != exitBadInput || !strings.Contains(stderr, "rolled back") {
		t.Errorf("a rolled-back ledger read as %d releases (exit %d: %s); want exit 3 naming the rollback", n, code, stderr)
	}
}
