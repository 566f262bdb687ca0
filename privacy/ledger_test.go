package privacy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

var testBudget = Budget{Epsilon: 1, Delta: 1e-5}

// testScopes are created in every test ledger (only budget --init creates
// scopes).
var testScopes = []string{"g", "s", "other", "building-7"}

func newTestLedger(t *testing.T) (*FileLedger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "ledger.json")
	l, err := CreateFileLedger(context.Background(), path, testBudget, FileLedgerOptions{}, testScopes...)
	if err != nil {
		t.Fatal(err)
	}
	return l, path
}

func TestFileLedgerChargeAndRefuse(t *testing.T) {
	ctx := context.Background()
	l, path := newTestLedger(t)
	_, rhoMax := l.Budget()
	want, _ := CKSRho(1, 1e-5)
	if rhoMax != want {
		t.Fatalf("ρ_max = %v, want CKSRho(1, 1e-5) = %v", rhoMax, want)
	}
	// Charge a third three times; a fourth is refused without clipping.
	third := rhoMax / 3 * (1 - 1e-6)
	for i := 0; i < 3; i++ {
		if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: fmt.Sprint("e", i), Rho: third}); err != nil {
			t.Fatalf("charge %d: %v", i, err)
		}
	}
	err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e3", Rho: third})
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("4th charge: err = %v, want *BudgetError", err)
	}
	spentExact := new(big.Rat).Mul(new(big.Rat).SetFloat64(third), big.NewRat(3, 1))
	if be.Scope != "g" || be.Requested != third || be.RhoBudget != rhoMax ||
		new(big.Rat).SetFloat64(be.Spent).Cmp(spentExact) < 0 || be.Remaining > rhoMax-3*third+1e-12 || be.Remaining < 0 {
		t.Errorf("BudgetError fields %+v", be)
	}
	if be.EpsilonAfter <= 1 || be.EpsilonSpent > 1 {
		t.Errorf("ε equivalents: spent %g after %g", be.EpsilonSpent, be.EpsilonAfter)
	}
	for _, s := range []string{"spent", "requested", "remaining"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	// The refused charge left no trace; a small one still fits.
	bal, _ := l.Balance(ctx, "g")
	if bal[0].Releases != 3 {
		t.Errorf("releases = %d after refusal", bal[0].Releases)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "small", Rho: rhoMax * 1e-9}); err != nil {
		t.Errorf("small charge refused: %v", err)
	}
	// Retry of the same release id.
	err = l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e1", Rho: 1e-9})
	if !errors.Is(err, ErrAlreadyCharged) {
		t.Errorf("retry: err = %v, want ErrAlreadyCharged", err)
	}
	// Scopes are independent; a reopened ledger sees the same state.
	if err := l.Charge(ctx, Charge{Scope: "other", ReleaseID: "e1", Rho: third}); err != nil {
		t.Errorf("other scope: %v", err)
	}
	l2, err := OpenFileLedger(path, FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := l2.Balance(ctx, "")
	if err != nil || len(all) != 4 || all[1].Scope != "g" || all[2].Scope != "other" {
		t.Fatalf("Balance(all) = %+v, %v", all, err)
	}
	all = all[1:] // building-7, never charged
	if all[0].Releases != 4 || all[0].RhoSpent+all[0].RhoRemaining < rhoMax*(1-1e-12) || all[0].RhoSpent > rhoMax {
		t.Errorf("balance %+v", all[0])
	}
	if all[1].EpsilonSpent <= 0 || all[1].EpsilonSpent >= 1 {
		t.Errorf("ε spent %g", all[1].EpsilonSpent)
	}
	none, _ := l2.Balance(ctx, "s") // created, never charged
	if len(none) != 1 || none[0].RhoSpent != 0 || none[0].RhoRemaining != rhoMax {
		t.Errorf("unused scope balance %+v", none)
	}
	if _, err := l2.Balance(ctx, "never"); !errors.Is(err, ErrNoScope) {
		t.Errorf("balance of a scope never created: %v", err)
	}
}

func TestFileLedgerValidation(t *testing.T) {
	ctx := context.Background()
	l, _ := newTestLedger(t)
	for _, c := range []Charge{
		{Scope: "g", ReleaseID: "a", Rho: math.NaN()},
		{Scope: "g", ReleaseID: "a", Rho: -1e-3},
		{Scope: "g", ReleaseID: "a", Rho: 0},
		{Scope: "g", ReleaseID: "a", Rho: math.Inf(1)},
		{Scope: "", ReleaseID: "a", Rho: 1e-3},
		{Scope: "g", ReleaseID: "", Rho: 1e-3},
	} {
		var ae *ArgumentError
		if err := l.Charge(ctx, c); !errors.As(err, &ae) {
			t.Errorf("Charge(%+v) = %v, want *ArgumentError", c, err)
		}
	}
	bal, _ := l.Balance(ctx, "")
	for _, b := range bal {
		if b.Releases != 0 {
			t.Errorf("invalid charges left %+v", bal)
		}
	}
	// A charge larger than the whole budget is refused, not clipped.
	_, rhoMax := l.Budget()
	var be *BudgetError
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "huge", Rho: rhoMax * 1.0000001}); !errors.As(err, &be) {
		t.Errorf("over-budget charge: %v", err)
	}
	// Opening rules.
	dir := t.TempDir()
	if _, err := OpenFileLedger(filepath.Join(dir, "none.json"), FileLedgerOptions{}); !errors.Is(err, ErrNoLedger) {
		t.Errorf("open missing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening a missing ledger created it: %v", err)
	}
	if _, err := CreateFileLedger(ctx, l.Path(), Budget{Epsilon: 2, Delta: 1e-5}, FileLedgerOptions{}); !errors.Is(err, ErrBudgetMismatch) {
		t.Errorf("re-init with other budget: %v", err)
	}
	if _, err := CreateFileLedger(ctx, filepath.Join(dir, "bad.json"), Budget{Epsilon: -1, Delta: 1e-5}, FileLedgerOptions{}); err == nil {
		t.Error("negative budget accepted")
	}
}

// Exact accumulation: many tiny charges are summed as rationals.
func TestFileLedgerExactSum(t *testing.T) {
	ctx := context.Background()
	l, _ := newTestLedger(t)
	sum := new(big.Rat)
	for i := 0; i < 50; i++ {
		rho := 1e-4 * (1 + float64(i)/7)
		sum.Add(sum, new(big.Rat).SetFloat64(rho))
		if err := l.Charge(ctx, Charge{Scope: "s", ReleaseID: fmt.Sprint(i), Rho: rho}); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := l.Balance(ctx, "s")
	if got := new(big.Rat).SetFloat64(b[0].RhoSpent); got.Cmp(sum) < 0 {
		t.Errorf("spent %v rounded below the exact sum %v", b[0].RhoSpent, sum.FloatString(20))
	}
	if f, _ := sum.Float64(); b[0].RhoSpent > math.Nextafter(f, 1) {
		t.Errorf("spent %v not the rounded-up sum %v", b[0].RhoSpent, f)
	}
}

// Concurrent charges from goroutines sharing one FileLedger and through
// two FileLedger instances on the same file never overspend: exactly
// ⌊ρ_max/ρ⌋ succeed.
func TestFileLedgerConcurrent(t *testing.T) {
	ctx := context.Background()
	l1, path := newTestLedger(t)
	l2, err := OpenFileLedger(path, FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, rhoMax := l1.Budget()
	rho := rhoMax / 10.5 // 10 fit, the 11th does not
	var mu sync.Mutex
	ok, refused := 0, 0
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			l := l1
			if g%2 == 1 {
				l = l2
			}
			for i := 0; i < 4; i++ {
				err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: fmt.Sprintf("%d-%d", g, i), Rho: rho})
				var be *BudgetError
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.As(err, &be):
					refused++
				default:
					t.Errorf("charge: %v", err)
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	if ok != 10 || refused != 22 {
		t.Errorf("%d charges succeeded, %d refused; want 10 and 22", ok, refused)
	}
	b, _ := l1.Balance(ctx, "g")
	if b[0].Releases != 10 || b[0].RhoSpent > rhoMax {
		t.Errorf("balance %+v", b[0])
	}
}

// Two processes charging the same ledger file never overspend.
func TestFileLedgerTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	l, path := newTestLedger(t)
	_, rhoMax := l.Budget()
	rho := rhoMax / 20.5 // 20 fit
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerHelperProcess$")
			cmd.Env = append(os.Environ(), "GRAPHCLOAK_LEDGER_HELPER="+path, fmt.Sprintf("GRAPHCLOAK_LEDGER_RHO=%v", rho),
				fmt.Sprintf("GRAPHCLOAK_LEDGER_PROC=%d", p))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("helper %d: %v\n%s", p, err, out)
			}
			outs[p] = string(out)
		}(p)
	}
	wg.Wait()
	ok := strings.Count(outs[0]+outs[1], "charged ")
	if ok != 20 {
		t.Errorf("%d charges succeeded across processes, want 20\n%s\n%s", ok, outs[0], outs[1])
	}
	b, _ := l.Balance(context.Background(), "g")
	if b[0].Releases != 20 || b[0].RhoSpent > rhoMax {
		t.Errorf("balance %+v", b[0])
	}
}

// TestLedgerHelperProcess is the child of TestFileLedgerTwoProcesses.
func TestLedgerHelperProcess(t *testing.T) {
	path := os.Getenv("GRAPHCLOAK_LEDGER_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	var rho float64
	fmt.Sscan(os.Getenv("GRAPHCLOAK_LEDGER_RHO"), &rho)
	l, err := OpenFileLedger(path, FileLedgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 15; i++ {
		id := fmt.Sprintf("p%s-%d", os.Getenv("GRAPHCLOAK_LEDGER_PROC"), i)
		err := l.Charge(context.Background(), Charge{Scope: "g", ReleaseID: id, Rho: rho})
		var be *BudgetError
		switch {
		case err == nil:
			fmt.Println("charged", id)
		case errors.As(err, &be):
			fmt.Println("refused", id)
		default:
			t.Fatal(err)
		}
	}
}

func TestFileLedgerCorruption(t *testing.T) {
	ctx := context.Background()
	l, path := newTestLedger(t)
	for _, id := range []string{"a", "a2"} {
		if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: id, Rho: 0.001}); err != nil {
			t.Fatal(err)
		}
	}
	orig, _ := os.ReadFile(path)
	tamper := map[string]string{
		"truncated":     string(orig[:len(orig)/2]),
		"empty":         "",
		"rho edited":    strings.Replace(string(orig), `"rho": 0.001`, `"rho": 0.0001`, 1),
		"release gone":  strings.Replace(string(orig), `"releaseId": "a"`, `"releaseId": "b"`, 1),
		"budget raised": strings.Replace(string(orig), `"epsilon": 1`, `"epsilon": 2`, 1),
		"garbage":       "\x00\x01not json",
	}
	for name, content := range tamper {
		if content == string(orig) {
			t.Fatalf("%s: tampering did not change the file", name)
		}
		os.WriteFile(path, []byte(content), 0o600)
		err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "b", Rho: 0.001})
		var ce *LedgerCorruptError
		if !errors.As(err, &ce) {
			t.Errorf("%s: Charge err = %v, want *LedgerCorruptError", name, err)
		}
		if _, err := l.Balance(ctx, ""); !errors.As(err, &ce) {
			t.Errorf("%s: Balance err = %v", name, err)
		}
		if _, err := OpenFileLedger(path, FileLedgerOptions{}); !errors.As(err, &ce) {
			t.Errorf("%s: Open err = %v", name, err)
		}
		if now, _ := os.ReadFile(path); string(now) != content {
			t.Errorf("%s: the corrupt ledger was rewritten", name)
		}
	}
	os.WriteFile(path, orig, 0o600)
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "b", Rho: 0.001}); err != nil {
		t.Fatalf("restored ledger: %v", err)
	}
}

// removeCharges rewrites a ledger file without its charges of scope and
// recomputes the chain with the given key (nil: SHA-256) — what someone
// "refunding" a budget by hand would do.
func removeCharges(t *testing.T, path, scope string, key *Key) {
	t.Helper()
	data, _ := os.ReadFile(path)
	var f ledgerFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	forger := &FileLedger{path: path, key: key}
	entries := f.Entries
	f.Entries = nil
	for _, e := range entries {
		if e.Kind == "charge" && e.Scope == scope {
			continue
		}
		e.Hash = ""
		if err := forger.appendEntry(&f, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := forger.write(&f); err != nil {
		t.Fatal(err)
	}
}

// With a ledger key, a file rewritten with charges
// removed and its chain recomputed without the key is refused, and the
// charged epoch stays charged; with the key it round-trips. Without a
// key the forgery is possible, as the threat model says.
func TestFileLedgerKeyedChainRefusesForgery(t *testing.T) {
	ctx := context.Background()
	key := testKey()
	path := filepath.Join(t.TempDir(), "ledger.json")
	l, err := CreateFileLedger(ctx, path, testBudget, FileLedgerOptions{Key: &key}, "g")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "E7", Rho: 0.01}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileLedger(path, FileLedgerOptions{}); err == nil {
		t.Error("a keyed ledger opened without its key")
	}
	var other Key
	copy(other[:], "not the ledger key")
	removeCharges(t, path, "g", &other) // forged with a wrong key
	var ce *LedgerCorruptError
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "E7", Rho: 0.01}); !errors.As(err, &ce) {
		t.Fatalf("charge on a forged keyed ledger: %v, want *LedgerCorruptError", err)
	}
	removeCharges(t, path, "g", &key) // the key holder can (it is their ledger)
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "E7", Rho: 0.01}); err != nil {
		t.Fatalf("ledger rewritten with the right key: %v", err)
	}

	// Unkeyed: the chain is recomputable (documented), so it stops only accidents.
	l2, path2 := newTestLedger(t)
	if err := l2.Charge(ctx, Charge{Scope: "g", ReleaseID: "E7", Rho: 0.01}); err != nil {
		t.Fatal(err)
	}
	removeCharges(t, path2, "g", nil)
	if err := l2.Charge(ctx, Charge{Scope: "g", ReleaseID: "E7", Rho: 0.01}); err != nil {
		t.Fatalf("unkeyed re-chained ledger: %v (the threat model says this is accepted)", err)
	}
}

// Only CreateFileLedger creates scopes: a charge or balance of an unknown
// scope is refused and nothing is written.
func TestFileLedgerUnknownScope(t *testing.T) {
	ctx := context.Background()
	l, path := newTestLedger(t)
	before, _ := os.ReadFile(path)
	if err := l.Charge(ctx, Charge{Scope: "fresh-scope", ReleaseID: "e", Rho: 0.01}); !errors.Is(err, ErrNoScope) {
		t.Errorf("charge of an unknown scope: %v, want ErrNoScope", err)
	}
	if _, err := l.Balance(ctx, "fresh-scope"); !errors.Is(err, ErrNoScope) {
		t.Errorf("balance of an unknown scope: %v, want ErrNoScope", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the ledger changed")
	}
	if _, err := CreateFileLedger(ctx, path, testBudget, FileLedgerOptions{}, "fresh-scope"); err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(ctx, Charge{Scope: "fresh-scope", ReleaseID: "e", Rho: 0.01}); err != nil {
		t.Errorf("charge after budget --init of the scope: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"default", "building-7", "Gebäude 7", "2026-11-21T06:00", strings.Repeat("x", 256)} {
		if err := CheckName("scope", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for name, bad := range map[string]string{"empty": "", "long": strings.Repeat("x", 257), "newline": "a\nb",
		"bell": "bad\x07scope", "nul": "a\x00", "zero-width": "a\u200bb", "NFD": "Geba\u0308ude", "invalid UTF-8": "a\xff"} {
		var ae *ArgumentError
		if err := CheckName("scope", bad); !errors.As(err, &ae) {
			t.Errorf("%s (%q) accepted: %v", name, bad, err)
		}
	}
}

// A crash between writing the temporary file and the rename leaves the
// old ledger intact; the stray temporary file is ignored.
func TestFileLedgerCrashLeftovers(t *testing.T) {
	ctx := context.Background()
	l, path := newTestLedger(t)
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "a", Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
	dir, base := filepath.Split(path)
	stray := filepath.Join(dir, "."+base+".tmp-12345")
	os.WriteFile(stray, []byte(`{"format":"graphcloak-ledger","half written`), 0o600)
	l2, err := OpenFileLedger(path, FileLedgerOptions{})
	if err != nil {
		t.Fatalf("open with stray temp file: %v", err)
	}
	if err := l2.Charge(ctx, Charge{Scope: "g", ReleaseID: "b", Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
	b, _ := l2.Balance(ctx, "g")
	if b[0].Releases != 2 {
		t.Errorf("releases = %d", b[0].Releases)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") && e.Name() != filepath.Base(stray) {
			t.Errorf("temporary file %s left behind by a successful write", e.Name())
		}
	}
}

func TestLedgerContextCancelled(t *testing.T) {
	l, path := newTestLedger(t)
	// Hold the lock from another instance so the charge must wait.
	holder := &FileLedger{path: path}
	unlock, err := holder.lock(context.Background(), 2 /* LOCK_EX */)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "a", Rho: 0.001}); !errors.Is(err, context.Canceled) {
		t.Errorf("charge under held lock with cancelled ctx: %v", err)
	}
}

// writeV1 writes a version 1 ledger as graphcloak wrote it before the hash
// chain (a plain SHA-256 checksum of the JSON).
func writeV1(t *testing.T, path string, releases map[string]float64) {
	t.Helper()
	rhoMax, _ := testBudget.Rho()
	sc := &ledgerScopeV1{Releases: map[string]ledgerEntryV1{}}
	sum := new(big.Rat)
	for id, rho := range releases {
		sc.Releases[id] = ledgerEntryV1{Rho: rho, Time: "2026-11-20T00:00:00Z"}
		sum.Add(sum, new(big.Rat).SetFloat64(rho))
	}
	sc.Spent = sum.RatString()
	sc.SpentRho, _ = sum.Float64()
	f := ledgerFileV1{Format: ledgerFormat, Version: 1, Budget: testBudget, RhoBudget: rhoMax, Accounting: AccountingCKS20,
		Scopes: map[string]*ledgerScopeV1{"g": sc}}
	b, _ := json.Marshal(&f)
	h := sha256.Sum256(b)
	f.Checksum = hex.EncodeToString(h[:])
	data, _ := json.MarshalIndent(&f, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A version 1 ledger is refused by releases, migrated by budget --init
// (CreateFileLedger) with every charge kept, and refused when its
// checksum does not verify.
func TestFileLedgerMigratesV1(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	writeV1(t, path, map[string]float64{"e1": 0.001, "e2": 0.002})
	if _, err := OpenFileLedger(path, FileLedgerOptions{}); !errors.As(err, new(*LedgerCorruptError)) {
		t.Fatalf("open v1: %v, want *LedgerCorruptError", err)
	}
	// The forgeable checksum is never migrated into a
	// valid chain without the key that seals it.
	before, _ := os.ReadFile(path)
	if _, err := CreateFileLedger(ctx, path, testBudget, FileLedgerOptions{}); !errors.As(err, new(*LedgerCorruptError)) || !strings.Contains(asFlags(err), "--ledger-key") {
		t.Fatalf("migrate without a key: %v, want a refusal naming --ledger-key", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a refused migration changed the file")
	}
	key := testKey()
	opt := FileLedgerOptions{Key: &key}
	if _, err := CreateFileLedger(ctx, path, Budget{Epsilon: 2, Delta: 1e-5}, opt); !errors.Is(err, ErrBudgetMismatch) {
		t.Fatalf("migrate with other totals: %v", err)
	}
	l, err := CreateFileLedger(ctx, path, testBudget, opt)
	if err != nil {
		t.Fatal(err)
	}
	bal, err := l.Balance(ctx, "g")
	if err != nil || bal[0].Releases != 2 || math.Abs(bal[0].RhoSpent-0.003) > 1e-15 {
		t.Fatalf("after migration: %+v %v", bal, err)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e1", Rho: 0.001}); !errors.Is(err, ErrAlreadyCharged) {
		t.Errorf("a migrated charge can be charged again: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	writeV1(t, bad, map[string]float64{"e1": 0.001})
	data, _ := os.ReadFile(bad)
	os.WriteFile(bad, []byte(strings.Replace(string(data), `"rho": 0.001`, `"rho": 0.0001`, 1)), 0o600)
	if _, err := CreateFileLedger(ctx, bad, testBudget, opt); !errors.As(err, new(*LedgerCorruptError)) {
		t.Errorf("migrating a v1 file with a wrong checksum: %v", err)
	}
}

// The high-water mark beside the key: an older copy
// of a keyed ledger put back is refused as a rollback, and so is a
// version 1 file (a forgery with no charges) in place of a ledger the mark
// has seen — budget --init does not migrate it even with the key.
func TestFileLedgerHighWaterMark(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	key := testKey()
	keyFile := filepath.Join(dir, "ledger.key")
	opt := FileLedgerOptions{Key: &key, HighWaterMarkDir: filepath.Dir(keyFile)}
	l, err := CreateFileLedger(ctx, path, testBudget, opt, "g")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e1", Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e2", Rho: 0.002}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileLedger(path, opt); err != nil {
		t.Fatalf("the ledger as written: %v", err)
	}
	current, _ := os.ReadFile(path)
	os.WriteFile(path, old, 0o600) // the rollback: e2's charge vanishes
	if _, err := OpenFileLedger(path, opt); !errors.As(err, new(*LedgerCorruptError)) || !strings.Contains(err.Error(), "rolled back") {
		t.Errorf("open after a rollback: %v, want a refusal naming the rollback", err)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e3", Rho: 0.001}); !errors.As(err, new(*LedgerCorruptError)) {
		t.Errorf("charge after a rollback: %v, want a refusal", err)
	}
	// Without the mark the same rollback passes: what the mark adds.
	if _, err := OpenFileLedger(path, FileLedgerOptions{Key: &key}); err != nil {
		t.Errorf("rolled-back ledger without a mark: %v (the chain alone cannot see a rollback)", err)
	}
	os.WriteFile(path, current, 0o600)
	writeV1(t, path, map[string]float64{})
	if _, err := CreateFileLedger(ctx, path, testBudget, opt, "g"); !errors.As(err, new(*LedgerCorruptError)) || !strings.Contains(err.Error(), "forgery") {
		t.Errorf("budget --init over a version 1 file where the mark saw a chain: %v, want a refusal", err)
	}
}

// TestFileLedgerKeyMismatchIsNotCorruption: a healthy
// keyed ledger opened without its key, or an unkeyed one with a key, is
// reported as a key mismatch naming the flag — not as corruption to be
// restored from a backup — and opens with the right setting.
func TestFileLedgerKeyMismatchIsNotCorruption(t *testing.T) {
	ctx := context.Background()
	key := testKey()
	dir := t.TempDir()
	keyed, plain := filepath.Join(dir, "keyed.json"), filepath.Join(dir, "plain.json")
	if _, err := CreateFileLedger(ctx, keyed, testBudget, FileLedgerOptions{Key: &key}, "g"); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFileLedger(ctx, plain, testBudget, FileLedgerOptions{}, "g"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		opt   FileLedgerOptions
		keyed bool
	}{{keyed, FileLedgerOptions{}, true}, {plain, FileLedgerOptions{Key: &key}, false}} {
		_, err := OpenFileLedger(c.path, c.opt)
		var ke *LedgerKeyError
		if !errors.As(err, &ke) || ke.Keyed != c.keyed || errors.As(err, new(*LedgerCorruptError)) ||
			strings.Contains(err.Error(), "backup") || !strings.Contains(asFlags(err), "--ledger-key") {
			t.Errorf("%s: %v, want a *LedgerKeyError (keyed %v) naming --ledger-key", c.path, err, c.keyed)
		}
	}
	if _, err := OpenFileLedger(keyed, FileLedgerOptions{Key: &key}); err != nil {
		t.Errorf("keyed ledger with its key: %v", err)
	}
	if _, err := OpenFileLedger(plain, FileLedgerOptions{}); err != nil {
		t.Errorf("plain ledger without a key: %v", err)
	}
}

// A ledger opened read-only (a dry run) reads as it is written — the
// same balance and charges, a keyed one only with its key, a rolled-back
// one refused — but creates nothing (no lock file, no mark), changes no
// byte and refuses to charge; a missing ledger is ErrNoLedger as for a
// release.
func TestFileLedgerReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.json")
	if _, err := OpenFileLedger(path, FileLedgerOptions{ReadOnly: true}); !errors.Is(err, ErrNoLedger) {
		t.Fatalf("missing ledger: %v, want ErrNoLedger", err)
	}
	key := testKey()
	opt := FileLedgerOptions{Key: &key, HighWaterMarkDir: dir}
	l, err := CreateFileLedger(ctx, path, testBudget, opt, "g")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e1", Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
	want, _ := l.Balance(ctx, "g")
	os.Remove(LockPath(path))
	files := func() map[string]string {
		m := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	before := files()
	if _, err := OpenFileLedger(path, FileLedgerOptions{ReadOnly: true}); !errors.As(err, new(*LedgerKeyError)) {
		t.Errorf("keyed ledger read without its key: %v, want *LedgerKeyError", err)
	}
	ro := opt
	ro.ReadOnly = true
	r, err := OpenFileLedger(path, ro)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Balance(ctx, "g")
	if err != nil || b[0] != want[0] {
		t.Errorf("read-only balance %+v, %v; want %+v", b, err, want[0])
	}
	if charged, err := r.Charged(ctx, "g", "e1"); !charged || err != nil {
		t.Errorf("read-only Charged(e1) = %v, %v", charged, err)
	}
	if err := r.Charge(ctx, Charge{Scope: "g", ReleaseID: "e2", Rho: 0.001}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only charge: %v, want ErrReadOnly", err)
	}
	if after := files(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("reading changed the directory: files %v, then %v", keys(before), keys(after))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// asFlags is err's text with each parameter it names written as a flag
// ("ledger key" → "--ledger-key"), as a command renders it.
func asFlags(err error) string {
	return errkind.Render(err, func(p errkind.Param) string { return "--" + strings.ReplaceAll(string(p), " ", "-") })
}

// A ledger's lock file is hidden (".NAME.lock", which .gitignore lists)
// and is the only file beside the ledger after a charge; a "NAME.lock"
// left by an earlier version is still honoured: held by a process of that
// version, it makes a charge wait.
func TestFileLedgerLockFileHiddenAndLegacyHonoured(t *testing.T) {
	l, path := newTestLedger(t)
	ctx := context.Background()
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e1", Rho: 0.001}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".ledger.json.lock", "ledger.json"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("beside the ledger after a charge: %q, want %q", names, want)
	}

	legacy, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer legacy.Close()
	if err := syscall.Flock(int(legacy.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	held, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.Charge(held, Charge{Scope: "g", ReleaseID: "e2", Rho: 0.001}); !errors.Is(err, context.Canceled) {
		t.Errorf("charge while an earlier version holds ledger.json.lock: %v, want it to wait (context.Canceled)", err)
	}
	syscall.Flock(int(legacy.Fd()), syscall.LOCK_UN)
	if err := l.Charge(ctx, Charge{Scope: "g", ReleaseID: "e2", Rho: 0.001}); err != nil {
		t.Errorf("charge once ledger.json.lock is free: %v", err)
	}
}
