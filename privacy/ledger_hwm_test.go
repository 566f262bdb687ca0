package privacy

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The high-water mark is bound to the ledger (its chain,
// and the resolved path it was written at), not to the spelling of the
// path; a keyed ledger that cannot write its mark charges nothing; a
// deleted ledger whose mark survives is not started afresh.

// markFixture is a keyed ledger real/ledger.json with its marks in keys/,
// a symlink link → real and a symlink sublink → real/sub.
type markFixture struct {
	root, real, link, keys, path string
	key                          Key
	opt                          FileLedgerOptions
}

func newMarkFixture(t *testing.T) *markFixture {
	t.Helper()
	root := t.TempDir()
	f := &markFixture{root: root, real: filepath.Join(root, "real"), link: filepath.Join(root, "link"), keys: filepath.Join(root, "keys"), key: testKey()}
	for _, d := range []string{f.real, f.keys, filepath.Join(f.real, "sub")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.real, f.link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.real, "sub"), filepath.Join(root, "sublink")); err != nil {
		t.Fatal(err)
	}
	f.path = filepath.Join(f.real, "ledger.json")
	f.opt = FileLedgerOptions{Key: &f.key, HighWaterMarkDir: f.keys}
	return f
}

// spellings are paths that reach f.path, relative ones from f.root.
func (f *markFixture) spellings() []string {
	return []string{
		f.path,
		filepath.Join(f.link, "ledger.json"),
		"real/ledger.json",
		"link/ledger.json",
		"link/sub/../ledger.json",
		f.root + "/sublink/../ledger.json", // the kernel's "..": real/, not root/
		"./sublink/../../real/ledger.json",
	}
}

func (f *markFixture) create(t *testing.T, path string) *FileLedger {
	t.Helper()
	l, err := CreateFileLedger(context.Background(), path, testBudget, f.opt, "g")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func charge(t *testing.T, l *FileLedger, id string) {
	t.Helper()
	if err := l.Charge(context.Background(), Charge{Scope: "g", ReleaseID: id, Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
}

func wantCorrupt(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if !errors.As(err, new(*LedgerCorruptError)) {
		t.Errorf("%s: %v, want *LedgerCorruptError", what, err)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v, want it to say %q", what, err, w)
		}
	}
}

// markFiles lists the marks in dir.
func markFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, markPrefix+"*"+markSuffix))
	return m
}

func TestHighWaterMarkSpellings(t *testing.T) {
	f := newMarkFixture(t)
	t.Chdir(f.root)
	l := f.create(t, f.path)
	charge(t, l, "e1")
	old, _ := os.ReadFile(f.path)
	charge(t, l, "e2")
	current, _ := os.ReadFile(f.path)
	if n := len(markFiles(t, f.keys)); n != 1 {
		t.Fatalf("%d marks, want 1", n)
	}
	for _, p := range f.spellings() {
		l, err := OpenFileLedger(p, f.opt)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b, err := l.Balance(context.Background(), "g"); err != nil || b[0].Releases != 2 {
			t.Fatalf("%s: %+v %v", p, b, err)
		}
	}
	os.WriteFile(f.path, old, 0o600) // the rollback
	for _, p := range f.spellings() {
		_, err := OpenFileLedger(p, f.opt)
		wantCorrupt(t, "open "+p+" rolled back", err, "rolled back")
		ro := f.opt
		ro.ReadOnly = true
		_, err = OpenFileLedger(p, ro)
		wantCorrupt(t, "read-only open "+p+" rolled back", err, "rolled back")
		_, err = CreateFileLedger(context.Background(), p, testBudget, f.opt, "g")
		wantCorrupt(t, "budget --init "+p+" rolled back", err, "rolled back")
	}
	for _, p := range f.spellings() {
		writeV1(t, f.path, map[string]float64{}) // a forgery with no charges
		_, err := CreateFileLedger(context.Background(), p, testBudget, f.opt, "g")
		wantCorrupt(t, "migrate a forged version 1 file through "+p, err, "forgery")
		_, err = OpenFileLedger(p, f.opt)
		wantCorrupt(t, "open a forged version 1 file through "+p, err, "forgery")
	}
	os.WriteFile(f.path, current, 0o600)
	// Writing through any spelling keeps one mark, naming the resolved path.
	for i, p := range f.spellings() {
		l, err := OpenFileLedger(p, f.opt)
		if err != nil {
			t.Fatal(err)
		}
		charge(t, l, fmt.Sprintf("s%d", i))
	}
	marks := markFiles(t, f.keys)
	if len(marks) != 1 {
		t.Fatalf("marks %v, want one", marks)
	}
	data, _ := os.ReadFile(marks[0])
	var m highWaterMark
	if err := json.Unmarshal(data, &m); err != nil || m.Ledger != f.path || m.Entries != 3+len(f.spellings()) {
		t.Errorf("mark %+v (%v), want ledger %s with %d entries", m, err, f.path, 3+len(f.spellings()))
	}
}

// The ledger file itself a symbolic link: the lock, reads and writes go to
// its target (the link stays a link), and both names share one mark.
func TestHighWaterMarkSymlinkedFile(t *testing.T) {
	f := newMarkFixture(t)
	l := f.create(t, f.path)
	alias := filepath.Join(f.root, "alias.json")
	if err := os.Symlink(f.path, alias); err != nil {
		t.Fatal(err)
	}
	a, err := OpenFileLedger(alias, f.opt)
	if err != nil {
		t.Fatal(err)
	}
	charge(t, a, "e1")
	if st, err := os.Lstat(alias); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("a charge through the link replaced the link: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(LockPath(alias)); err == nil {
		t.Error("the link has its own lock file: two names of one ledger would not exclude each other")
	}
	if err := l.Charge(context.Background(), Charge{Scope: "g", ReleaseID: "e1", Rho: 0.001}); !errors.Is(err, ErrAlreadyCharged) {
		t.Errorf("the charge through the link is not in the ledger: %v", err)
	}
	os.Remove(f.path)
	if err := os.Symlink(filepath.Join(f.root, "missing.json"), filepath.Join(f.root, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFileLedger(context.Background(), filepath.Join(f.root, "dangling.json"), testBudget, f.opt, "g"); err == nil || !strings.Contains(err.Error(), "symbolic link to a missing file") {
		t.Errorf("create through a dangling link: %v", err)
	}
}

// A copy of the ledger at another path is the same chain, bound to the
// same mark: an older copy is refused there (a rollback elsewhere), and
// of two copies charged separately (a fork) the one behind is refused.
func TestHighWaterMarkCopies(t *testing.T) {
	f := newMarkFixture(t)
	l := f.create(t, f.path)
	charge(t, l, "e1")
	old, _ := os.ReadFile(f.path)
	charge(t, l, "e2")
	elsewhere := filepath.Join(f.root, "elsewhere.json")
	os.WriteFile(elsewhere, old, 0o600)
	_, err := OpenFileLedger(elsewhere, f.opt)
	wantCorrupt(t, "an older copy elsewhere", err, "rolled back")
	_, err = CreateFileLedger(context.Background(), elsewhere, testBudget, f.opt, "g")
	wantCorrupt(t, "budget --init on an older copy elsewhere", err, "rolled back")

	// A fork: a current copy elsewhere, charged there and here.
	current, _ := os.ReadFile(f.path)
	os.WriteFile(elsewhere, current, 0o600)
	c, err := OpenFileLedger(elsewhere, f.opt)
	if err != nil {
		t.Fatalf("a current copy: %v", err)
	}
	charge(t, c, "e3")
	err = l.Charge(context.Background(), Charge{Scope: "g", ReleaseID: "e4", Rho: 0.001})
	wantCorrupt(t, "charge the original after its copy was charged", err, "rolled back")
	// The original charged without its mark (say, by an older graphcloak):
	// as long as the copy, but another continuation of the chain.
	unmarked, err := OpenFileLedger(f.path, FileLedgerOptions{Key: &f.key})
	if err != nil {
		t.Fatal(err)
	}
	charge(t, unmarked, "e4")
	_, err = OpenFileLedger(f.path, f.opt)
	wantCorrupt(t, "a fork", err, "fork")
	// The moved ledger: budget --init at the new path moves the mark, and
	// the old path is free.
	os.Remove(f.path)
	// The chain's mark names where it was last written (elsewhere), so the
	// original path is free.
	if _, err := OpenFileLedger(f.path, f.opt); !errors.Is(err, ErrNoLedger) {
		t.Errorf("the original path, deleted after the chain was written elsewhere: %v, want ErrNoLedger", err)
	}
	os.WriteFile(f.path, current, 0o600)
	if _, err := CreateFileLedger(context.Background(), f.path, testBudget, f.opt, "g"); err == nil {
		t.Error("budget --init on a copy behind the chain's mark")
	}
	os.Remove(f.path)
	if _, err := CreateFileLedger(context.Background(), elsewhere, testBudget, f.opt, "g"); err != nil {
		t.Fatalf("budget --init at the new path: %v", err)
	}
	if _, err := CreateFileLedger(context.Background(), f.path, testBudget, f.opt, "g"); err != nil {
		t.Errorf("a new ledger where the moved one was: %v", err)
	}
}

// A deleted ledger whose mark survives: budget --init does not start an
// empty one and a release is refused (not told to run budget --init), by
// any spelling; removing the mark is how the operator starts afresh.
func TestHighWaterMarkDeletedLedger(t *testing.T) {
	f := newMarkFixture(t)
	t.Chdir(f.root)
	l := f.create(t, f.path)
	charge(t, l, "e1")
	os.Remove(f.path)
	for _, p := range f.spellings() {
		_, err := CreateFileLedger(context.Background(), p, testBudget, f.opt, "g")
		wantCorrupt(t, "budget --init "+p+" deleted", err, "deleted", f.keys)
		_, err = OpenFileLedger(p, f.opt)
		wantCorrupt(t, "open "+p+" deleted", err, "deleted")
		if errors.Is(err, ErrNoLedger) {
			t.Errorf("open %s: %v reads as a ledger never created", p, err)
		}
		if _, err := os.Stat(f.path); err == nil {
			t.Fatalf("%s: the deleted ledger was recreated", p)
		}
	}
	// Deleted and created again by hand (any inode): its chain is not the
	// one written here.
	other := &markFixture{}
	*other = *f
	other.opt.HighWaterMarkDir = "" // a fresh keyed chain made without the mark
	if _, err := CreateFileLedger(context.Background(), f.path, testBudget, other.opt, "g"); err != nil {
		t.Fatal(err)
	}
	_, err := OpenFileLedger(f.path, f.opt)
	wantCorrupt(t, "another keyed chain in place of the deleted one", err, "another keyed chain")
	// An unkeyed chain in its place is not a key mismatch ("drop
	// --ledger-key") but a forgery.
	os.Remove(f.path)
	if _, err := CreateFileLedger(context.Background(), f.path, testBudget, FileLedgerOptions{}, "g"); err != nil {
		t.Fatal(err)
	}
	_, err = OpenFileLedger(f.path, f.opt)
	wantCorrupt(t, "an unkeyed chain in place of the keyed one", err, "unkeyed", "forgery")
	os.Remove(f.path)
	for _, m := range markFiles(t, f.keys) {
		os.Remove(m)
	}
	if _, err := CreateFileLedger(context.Background(), f.path, testBudget, f.opt, "g"); err != nil {
		t.Errorf("budget --init once the mark is removed: %v", err)
	}
}

// A keyed ledger whose mark cannot be written refuses to charge, and
// budget --init refuses to create it, naming the mark; nothing is written.
// Tests run as root, for whom a directory of mode 0555 is writable, so the
// mark is made unwritable in two ways that hold for root too: its name is
// taken by a directory (rename cannot replace a directory by a file), and
// the directory is made immutable (chattr +i, as a read-only mount is).
func TestHighWaterMarkUnwritable(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"name taken by a directory", "immutable directory"} {
		t.Run(how, func(t *testing.T) {
			f := newMarkFixture(t)
			block := func(mark string) func() {
				switch how {
				case "name taken by a directory":
					if err := os.Mkdir(mark, 0o700); err != nil {
						t.Fatal(err)
					}
					return func() { os.Remove(mark) }
				default:
					immutableDir(t, f.keys)
					return func() { exec.Command("chattr", "-i", f.keys).Run(); os.Chmod(f.keys, 0o700) }
				}
			}
			// budget --init: refused before the ledger is written. The
			// mark's name depends on the chain (its creation time), so the
			// directory case blocks every name by blocking the directory.
			if how == "immutable directory" {
				unblock := block("")
				_, err := CreateFileLedger(ctx, f.path, testBudget, f.opt, "g")
				var me *HighWaterMarkError
				if !errors.As(err, &me) || me.Charged || !strings.Contains(err.Error(), f.keys) {
					t.Errorf("budget --init with the mark unwritable: %v, want *HighWaterMarkError naming %s", err, f.keys)
				}
				if _, err := os.Stat(f.path); err == nil {
					t.Error("a refused budget --init created the ledger")
				}
				if _, err := os.Stat(LockPath(f.path)); err == nil {
					t.Error("a refused budget --init left a lock file")
				}
				unblock()
			}
			l := f.create(t, f.path)
			charge(t, l, "e1")
			before, _ := os.ReadFile(f.path)
			mark := markFiles(t, f.keys)[0]
			if how == "name taken by a directory" {
				os.Remove(mark)
			}
			unblock := block(mark)
			err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e2", Rho: 0.001})
			var me *HighWaterMarkError
			if !errors.As(err, &me) || me.Charged || !strings.Contains(err.Error(), f.keys) || !strings.Contains(err.Error(), "high-water mark") {
				t.Errorf("charge with the mark unwritable: %v, want *HighWaterMarkError naming %s", err, f.keys)
			}
			if after, _ := os.ReadFile(f.path); string(after) != string(before) {
				t.Error("a charge whose mark could not be written was recorded")
			}
			_, err = CreateFileLedger(ctx, f.path, testBudget, f.opt, "g", "h")
			if !errors.As(err, &me) {
				t.Errorf("budget --init of a new scope with the mark unwritable: %v, want *HighWaterMarkError", err)
			}
			if after, _ := os.ReadFile(f.path); string(after) != string(before) {
				t.Error("a refused budget --init changed the ledger")
			}
			// Reading needs no mark write: a dry run still works.
			ro := f.opt
			ro.ReadOnly = true
			if _, err := OpenFileLedger(f.path, ro); err != nil && how == "immutable directory" {
				t.Errorf("read-only open with the mark directory immutable: %v", err)
			}
			unblock()
			charge(t, l, "e2")
		})
	}
}

func immutableDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// A mark written before version 2 (KEYFILE.hwm-<hash of the path as
// typed>) still guards its ledger, and is replaced by the chain's own mark
// at the next write.
func TestHighWaterMarkLegacy(t *testing.T) {
	f := newMarkFixture(t)
	noMark := FileLedgerOptions{Key: &f.key}
	l, err := CreateFileLedger(context.Background(), filepath.Join(f.link, "ledger.json"), testBudget, noMark, "g")
	if err != nil {
		t.Fatal(err)
	}
	charge(t, l, "e1")
	old, _ := os.ReadFile(f.path)
	charge(t, l, "e2")
	// What graphcloak before issue 47 wrote, for the spelling link/ledger.json.
	var ff ledgerFile
	data, _ := os.ReadFile(f.path)
	json.Unmarshal(data, &ff)
	abs := filepath.Join(f.link, "ledger.json")
	h := sha256.Sum256([]byte(abs))
	legacy := filepath.Join(f.keys, "ledger.key.hwm-"+hex.EncodeToString(h[:8]))
	m := legacyMark{Ledger: abs, Entries: len(ff.Entries), Head: ff.Head}
	mac := hmac.New(sha256.New, subkey(&f.key, "ledger-high-water-mark"))
	fmt.Fprintf(mac, "%q/%d/%s", m.Ledger, m.Entries, m.Head)
	m.MAC = hex.EncodeToString(mac.Sum(nil))
	b, _ := json.Marshal(m)
	os.WriteFile(legacy, b, 0o600)

	os.WriteFile(f.path, old, 0o600)
	_, err = OpenFileLedger(f.path, f.opt) // another spelling than the legacy mark's
	wantCorrupt(t, "rolled back under a legacy mark", err, "rolled back")
	os.WriteFile(f.path, data, 0o600)
	l, err = OpenFileLedger(f.path, f.opt)
	if err != nil {
		t.Fatal(err)
	}
	charge(t, l, "e3")
	if _, err := os.Stat(legacy); err == nil {
		t.Error("the legacy mark survived the chain's own mark")
	}
	if len(markFiles(t, f.keys)) != 1 {
		t.Error("no version 2 mark was written")
	}
	os.WriteFile(f.path, old, 0o600)
	_, err = OpenFileLedger(f.path, f.opt)
	wantCorrupt(t, "rolled back under the version 2 mark", err, "rolled back")
}

// A mark edited or copied under another chain's name is refused.
func TestHighWaterMarkTampered(t *testing.T) {
	f := newMarkFixture(t)
	l := f.create(t, f.path)
	charge(t, l, "e1")
	mark := markFiles(t, f.keys)[0]
	data, _ := os.ReadFile(mark)
	os.WriteFile(mark, []byte(strings.Replace(string(data), `"entries": 2`, `"entries": 1`, 1)), 0o600)
	_, err := OpenFileLedger(f.path, f.opt)
	wantCorrupt(t, "an edited mark", err, "does not verify")
	os.WriteFile(mark, data, 0o600)
	other := filepath.Join(f.real, "other.json")
	f.create(t, other)
	for _, m := range markFiles(t, f.keys) {
		if m != mark {
			os.WriteFile(m, data, 0o600) // the first chain's mark under the second's name
		}
	}
	_, err = OpenFileLedger(other, f.opt)
	wantCorrupt(t, "a mark under another chain's name", err, "another chain's mark")
}
