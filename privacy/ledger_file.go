package privacy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
)

// FileLedger is a Ledger kept in a local JSON file, for runs without a
// database. Every scope in the file has the same lifetime budget, fixed
// when the file is created.
//
// Durability and concurrency: each Charge takes an exclusive flock(2) on
// path+".lock" (so concurrent processes and goroutines serialise), reads
// and verifies the file, and writes the new state to a temporary file in
// the same directory, fsyncs it, renames it over the ledger and fsyncs the
// directory. A crash leaves either the old or the new ledger, never a torn
// one; a leftover temporary file is ignored. The spend of a scope is kept
// as an exact rational (the sum of the float64 costs, each exact in
// binary), so no rounding accumulates. A file that fails its checksum or
// consistency checks is refused with *LedgerCorruptError and never reset.
type FileLedger struct {
	path   string
	budget Budget
	rhoMax float64
	mu     sync.Mutex
}

// LedgerCorruptError reports a ledger file that cannot be trusted.
type LedgerCorruptError struct {
	Path   string
	Reason string
}

func (e *LedgerCorruptError) Error() string {
	return fmt.Sprintf("privacy: ledger %s is corrupt (%s); refusing to use or reset it: restore it from a backup", e.Path, e.Reason)
}

// ErrNoLedger is wrapped when a ledger file does not exist and no budget
// was given to create it.
var ErrNoLedger = errors.New("privacy: ledger does not exist; create it with a budget")

// ErrBudgetMismatch is wrapped when a ledger is opened with a budget other
// than the one it was created with. A budget is never changed silently.
var ErrBudgetMismatch = errors.New("privacy: ledger budget differs")

const (
	ledgerFormat  = "graphcloak-ledger"
	ledgerVersion = 1
)

type ledgerFile struct {
	Format     string                  `json:"format"`
	Version    int                     `json:"version"`
	Budget     Budget                  `json:"budget"`
	RhoBudget  float64                 `json:"rhoBudget"`
	Accounting string                  `json:"accounting"`
	Scopes     map[string]*ledgerScope `json:"scopes"`
	Checksum   string                  `json:"checksum"`
}

type ledgerScope struct {
	// Spent is the exact sum of the charges' ρ, as a rational "a/b".
	Spent string `json:"spent"`
	// SpentRho is Spent rounded up to float64 (for people reading the file).
	SpentRho float64                `json:"spentRho"`
	Releases map[string]ledgerEntry `json:"releases"`
}

type ledgerEntry struct {
	Rho  float64 `json:"rho"`
	Time string  `json:"time"`
}

// OpenFileLedger opens the ledger at path. If the file does not exist it
// is created (with its directory, mode 0700) with the given budget; a zero
// budget then returns an error wrapping ErrNoLedger. If it exists, a zero
// budget means "use the stored budget" and any other budget must equal the
// stored one (else ErrBudgetMismatch).
func OpenFileLedger(path string, budget Budget) (*FileLedger, error) {
	if path == "" {
		return nil, &ArgumentError{Func: "OpenFileLedger", Param: "path", Reason: "must not be empty"}
	}
	if !budget.IsZero() {
		if err := budget.Validate(); err != nil {
			return nil, err
		}
	}
	l := &FileLedger{path: path}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("privacy: open ledger: %w", err)
	}
	unlock, err := l.lock(context.Background(), syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, err := l.read()
	if errors.Is(err, fs.ErrNotExist) {
		if budget.IsZero() {
			return nil, fmt.Errorf("%w: %s", ErrNoLedger, path)
		}
		rhoMax, err := budget.Rho()
		if err != nil {
			return nil, err
		}
		f = &ledgerFile{Format: ledgerFormat, Version: ledgerVersion, Budget: budget, RhoBudget: rhoMax,
			Accounting: AccountingCKS20, Scopes: map[string]*ledgerScope{}}
		if err := l.write(f); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	} else if !budget.IsZero() && budget != f.Budget {
		return nil, fmt.Errorf("%w: %s was created with ε=%g, δ=%g, not ε=%g, δ=%g", ErrBudgetMismatch,
			path, f.Budget.Epsilon, f.Budget.Delta, budget.Epsilon, budget.Delta)
	}
	l.budget, l.rhoMax = f.Budget, f.RhoBudget
	return l, nil
}

// Path returns the ledger's file path.
func (l *FileLedger) Path() string { return l.path }

// Budget returns the (ε, δ) budget of every scope and its ρ_max.
func (l *FileLedger) Budget() (Budget, float64) { return l.budget, l.rhoMax }

// Charge implements Ledger.
func (l *FileLedger) Charge(ctx context.Context, c Charge) error {
	if err := c.Validate(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	unlock, err := l.lock(ctx, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := l.read()
	if err != nil {
		return err
	}
	sc := f.Scopes[c.Scope]
	spent := new(big.Rat)
	if sc != nil {
		spent.SetString(sc.Spent) // verified by read
		if _, dup := sc.Releases[c.ReleaseID]; dup {
			return fmt.Errorf("privacy: ledger %s: scope %q release %q: %w", l.path, c.Scope, c.ReleaseID, ErrAlreadyCharged)
		}
	}
	next := new(big.Rat).Add(spent, new(big.Rat).SetFloat64(c.Rho))
	if next.Cmp(new(big.Rat).SetFloat64(f.RhoBudget)) > 0 {
		return NewBudgetError(c, ratUp(spent), f.RhoBudget, f.Budget)
	}
	if sc == nil {
		sc = &ledgerScope{Releases: map[string]ledgerEntry{}}
		f.Scopes[c.Scope] = sc
	}
	sc.Spent = next.RatString()
	sc.SpentRho = ratUp(next)
	sc.Releases[c.ReleaseID] = ledgerEntry{Rho: c.Rho, Time: time.Now().UTC().Format(time.RFC3339Nano)}
	return l.write(f)
}

// Balance implements Ledger.
func (l *FileLedger) Balance(ctx context.Context, scope string) ([]Balance, error) {
	unlock, err := l.lock(ctx, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, err := l.read()
	if err != nil {
		return nil, err
	}
	var names []string
	if scope != "" {
		names = []string{scope}
	} else {
		for s := range f.Scopes {
			names = append(names, s)
		}
		sort.Strings(names)
	}
	out := make([]Balance, 0, len(names))
	for _, s := range names {
		b := Balance{Scope: s, RhoBudget: f.RhoBudget, Budget: f.Budget}
		if sc := f.Scopes[s]; sc != nil {
			spent, _ := new(big.Rat).SetString(sc.Spent)
			b.Releases = len(sc.Releases)
			b.RhoSpent = ratUp(spent)
			rem := new(big.Rat).Sub(new(big.Rat).SetFloat64(f.RhoBudget), spent)
			if rem.Sign() > 0 {
				b.RhoRemaining = ratDown(rem)
			}
		} else {
			b.RhoRemaining = f.RhoBudget
		}
		b.EpsilonSpent, _ = CKSEpsilon(b.RhoSpent, f.Budget.Delta)
		out = append(out, b)
	}
	return out, nil
}

func ratUp(r *big.Rat) float64 {
	v, exact := r.Float64()
	if !exact && new(big.Rat).SetFloat64(v).Cmp(r) < 0 {
		v = nextUp(v)
	}
	return v
}

func ratDown(r *big.Rat) float64 {
	v, exact := r.Float64()
	if !exact && new(big.Rat).SetFloat64(v).Cmp(r) > 0 {
		v = nextDown(v)
	}
	return v
}

func nextUp(v float64) float64   { return math.Nextafter(v, math.Inf(1)) }
func nextDown(v float64) float64 { return math.Nextafter(v, math.Inf(-1)) }

// lock takes flock(2) of the given kind on path+".lock", polling so that
// ctx can cancel the wait.
func (l *FileLedger) lock(ctx context.Context, how int) (func(), error) {
	lf, err := os.OpenFile(l.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("privacy: lock ledger: %w", err)
	}
	for {
		err := syscall.Flock(int(lf.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			lf.Close()
			return nil, fmt.Errorf("privacy: lock ledger: %w", err)
		}
		select {
		case <-ctx.Done():
			lf.Close()
			return nil, fmt.Errorf("privacy: lock ledger %s: %w", l.path, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
	return func() {
		syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
		lf.Close()
	}, nil
}

func (f *ledgerFile) checksum() (string, error) {
	c := *f
	c.Checksum = ""
	b, err := json.Marshal(&c) // map keys are sorted: deterministic
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// read loads and verifies the ledger file. The caller holds the lock.
func (l *FileLedger) read() (*ledgerFile, error) {
	data, err := os.ReadFile(l.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("privacy: read ledger: %w", err)
	}
	corrupt := func(format string, a ...any) error {
		return &LedgerCorruptError{Path: l.path, Reason: fmt.Sprintf(format, a...)}
	}
	var f ledgerFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, corrupt("not valid ledger JSON: %v", err)
	}
	if f.Format != ledgerFormat || f.Version != ledgerVersion {
		return nil, corrupt("format %q version %d, want %q version %d", f.Format, f.Version, ledgerFormat, ledgerVersion)
	}
	sum, err := f.checksum()
	if err != nil || sum != f.Checksum {
		return nil, corrupt("checksum mismatch")
	}
	if err := f.Budget.Validate(); err != nil {
		return nil, corrupt("invalid budget: %v", err)
	}
	if want, err := f.Budget.Rho(); err != nil || want != f.RhoBudget {
		return nil, corrupt("ρ budget %v does not match the budget ε=%g, δ=%g", f.RhoBudget, f.Budget.Epsilon, f.Budget.Delta)
	}
	if f.Scopes == nil {
		return nil, corrupt("no scopes table")
	}
	for name, sc := range f.Scopes {
		if sc == nil || sc.Releases == nil {
			return nil, corrupt("scope %q is empty", name)
		}
		spent, ok := new(big.Rat).SetString(sc.Spent)
		if !ok {
			return nil, corrupt("scope %q: spend %q is not a rational", name, sc.Spent)
		}
		sum := new(big.Rat)
		for id, e := range sc.Releases {
			if (Charge{Scope: name, ReleaseID: id, Rho: e.Rho}).Validate() != nil {
				return nil, corrupt("scope %q release %q: invalid ρ", name, id)
			}
			sum.Add(sum, new(big.Rat).SetFloat64(e.Rho))
		}
		if sum.Cmp(spent) != 0 {
			return nil, corrupt("scope %q: spend %s is not the sum of its releases", name, sc.Spent)
		}
	}
	return &f, nil
}

// write stores f atomically. The caller holds the exclusive lock.
func (l *FileLedger) write(f *ledgerFile) error {
	sum, err := f.checksum()
	if err != nil {
		return fmt.Errorf("privacy: write ledger: %w", err)
	}
	f.Checksum = sum
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("privacy: write ledger: %w", err)
	}
	return writeFileAtomic(l.path, append(data, '\n'), 0o600)
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, rename over path, fsync the directory.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("privacy: write %s: sync directory: %w", path, err)
	}
	return nil
}
