package privacy

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
)

// FileLedger is a Ledger kept in a local JSON file, for runs without a
// database. Every scope in the file has the same lifetime budget, fixed
// when the file is created; only CreateFileLedger creates the
// file or adds a scope. A charge to a scope that was
// never created is refused (ErrNoScope): a release never creates, raises
// or resets a budget.
//
// The file is an append-only hash chain: a header (format, budget, ρ_max,
// integrity mode) and a list of entries ("scope" when a scope is created,
// "charge" for each release), each carrying
//
//	hash_i = H(hash_{i−1} ‖ JSON(entry_i without its hash)),  hash_0 = H(JSON(header))
//	head   = H("head" ‖ hash_n ‖ n)
//
// where H is HMAC-SHA256 under the ledger key when one is given
// (FileLedgerOptions.Key), else SHA-256. The spend of each scope is
// recomputed from the entries on every read (exactly, as a rational), so a
// file whose entries were edited, removed or reordered fails the chain.
//
// Threat model, plainly: without a ledger key the chain detects accidents
// and careless edits only — anyone who can write the file can recompute
// SHA-256 and remove charges. With a ledger key, nobody without the key
// can remove, change or add a charge or a scope undetected. The chain
// alone does not stop someone from replacing the file with an older copy
// of itself (a rollback) or deleting it; with a key and
// FileLedgerOptions.HighWaterMarkDir the high-water marks do
// (ledger_hwm.go). Without them: keep the ledger where only the operator
// can write, back it up, or use the Neo4j ledger.
//
// The file is named by its resolved path (every symbolic link and ".."
// followed), which is what is locked, read and written: two spellings of
// one ledger share its lock, and a ledger reached through a symbolic link
// to the file is written to its target, the link left in place.
//
// Durability and concurrency: each Charge takes an exclusive flock(2) on
// LockPath(path), the hidden ".NAME.lock" beside it (and on the "NAME.lock"
// of earlier versions when one is there) (so concurrent processes and goroutines serialise), reads
// and verifies the file, and writes the new state to a temporary file in
// the same directory, fsyncs it, renames it over the ledger and fsyncs the
// directory. A crash leaves either the old or the new ledger, never a torn
// one; a leftover temporary file is ignored. A file that fails its checks
// is refused with *LedgerCorruptError and never reset.
type FileLedger struct {
	path     string // as given (in messages)
	file     string // resolved (resolvePath): what is read, written and locked
	key      *Key
	markDir  string // where the high-water marks are kept (ledger_hwm.go), or ""
	readOnly bool
	budget   Budget
	rhoMax   float64
	mu       sync.Mutex
}

// FileLedgerOptions configure a FileLedger. The zero value means an
// unkeyed (SHA-256) chain.
type FileLedgerOptions struct {
	// Key, when set, keys the hash chain with HMAC-SHA256. A ledger
	// created with a key can be opened only with it, and one created
	// without a key only without.
	Key *Key
	// HighWaterMarkDir, with Key, is the directory of the high-water
	// marks that record how far each ledger under the key was written (the
	// key file's directory), so that an older copy put
	// back, a deleted ledger or another file in its place is detected
	// (ledger_hwm.go). It must be writable for a charge or CreateFileLedger.
	HighWaterMarkDir string
	// ReadOnly opens the ledger for Balance and Charged only (a dry run):
	// nothing is created — not even the lock file — and Charge is refused.
	// CreateFileLedger ignores it.
	ReadOnly bool
}

// ErrReadOnly is wrapped by Charge on a ledger opened read-only.
var ErrReadOnly = errkind.New(errkind.Internal, "privacy: ledger opened read-only")

// LedgerCorruptError reports a ledger file that cannot be trusted.
type LedgerCorruptError struct {
	Path   string
	Reason string
	// reason is Reason naming parameters, when it does (corruptf).
	reason errkind.Renderer
}

// corruptf is a *LedgerCorruptError whose reason may name parameters.
func corruptf(path, format string, a ...any) *LedgerCorruptError {
	r := errkind.Errorf(format, a...).(errkind.Renderer)
	return &LedgerCorruptError{Path: path, Reason: r.Error(), reason: r}
}

func (e *LedgerCorruptError) Error() string { return e.RenderText(nil) }

// RenderText is its text naming parameters as name does.
func (e *LedgerCorruptError) RenderText(name func(errkind.Param) string) string {
	reason := e.Reason
	if e.reason != nil && name != nil {
		reason = e.reason.RenderText(name)
	}
	return fmt.Sprintf("privacy: ledger %s is corrupt (%s); refusing to use or reset it: restore it from a backup", e.Path, reason)
}

// LedgerKeyError reports a healthy ledger opened with the wrong key
// setting: a keyed ledger without its key, or an unkeyed one with a key.
// Nothing is wrong with the file.
type LedgerKeyError struct {
	Path  string
	Keyed bool // the ledger is keyed (HMAC-SHA256) and no key was given
}

func (e *LedgerKeyError) Error() string { return e.RenderText(paramName) }

// RenderText is its text naming parameters as name does.
func (e *LedgerKeyError) RenderText(name func(errkind.Param) string) string {
	if e.Keyed {
		return fmt.Sprintf("privacy: ledger %s is keyed (HMAC-SHA256 chain): give its key with %s FILE (config privacy.ledgerKeyFile); the ledger itself is fine", e.Path, name(ParamLedgerKey))
	}
	return fmt.Sprintf("privacy: ledger %s was created without a ledger key: drop %s (config privacy.ledgerKeyFile) to use it; the ledger itself is fine", e.Path, name(ParamLedgerKey))
}

// Kind: the user fixes the invocation.
func (*LedgerKeyError) Kind() errkind.Kind { return errkind.BadInput }

// ErrNoLedger is wrapped when a ledger does not exist: only CreateFileLedger
// (CreateFileLedger, connector.InitLedgerScope) creates one.
var ErrNoLedger = errkind.New(errkind.BadInput, "privacy: ledger does not exist")

// ErrNoScope is wrapped when a scope was never created in the ledger:
// only CreateFileLedger creates one, with the ledger's budget.
var ErrNoScope = errkind.New(errkind.BadInput, "privacy: scope has no budget")

// ErrBudgetMismatch is wrapped when a ledger is initialised with a budget
// other than the one it was created with. A budget is never changed.
var ErrBudgetMismatch = errkind.New(errkind.BadInput, "privacy: ledger budget differs")

const (
	ledgerFormat  = "graphcloak-ledger"
	ledgerVersion = 2

	integritySHA256 = "sha256"
	integrityHMAC   = "hmac-sha256"
)

// ledgerHeader is hashed into the chain's first link.
type ledgerHeader struct {
	Format     string  `json:"format"`
	Version    int     `json:"version"`
	Budget     Budget  `json:"budget"`
	RhoBudget  float64 `json:"rhoBudget"`
	Accounting string  `json:"accounting"`
	Integrity  string  `json:"integrity"`
	CreatedAt  string  `json:"createdAt"`
}

type ledgerFile struct {
	ledgerHeader
	Entries []ledgerEntry `json:"entries"`
	// Head = H("head" ‖ last link ‖ number of entries) seals the end of the
	// chain, so that dropping the last entries needs the key too.
	Head string `json:"head"`
}

type ledgerEntry struct {
	Seq       int     `json:"seq"`
	Kind      string  `json:"kind"` // "scope" or "charge"
	Scope     string  `json:"scope"`
	ReleaseID string  `json:"releaseId,omitempty"`
	Rho       float64 `json:"rho,omitempty"`
	Epsilon   float64 `json:"epsilon,omitempty"` // a pure ε-DP charge (an answer)
	// Delta is an answer's δ₀ (Charge.Delta); omitted when 0, so the
	// links of charges written before it are unchanged.
	Delta float64 `json:"delta,omitempty"`
	Time  string  `json:"time"`
	Hash  string  `json:"hash"`
}

// ledgerState is what the entries add up to.
type ledgerState struct {
	scopes map[string]*scopeState
}

type scopeState struct {
	spend    Spend
	releases map[string]bool
}

// CreateFileLedger creates the ledger at path with budget (and its
// directory, mode 0700) if it does not exist, and adds each scope not in
// it yet. A version 1 ledger (plain checksum) whose checksum and sums
// verify is migrated to the version 2 chain with all its scopes and
// charges. An existing ledger must have been created with the same budget
// (else an error wrapping ErrBudgetMismatch) and the same integrity mode.
// It makes or migrates a ledger; releases call OpenFileLedger.
func CreateFileLedger(ctx context.Context, path string, budget Budget, opt FileLedgerOptions, scopes ...string) (*FileLedger, error) {
	rhoMax, err := checkCreateArgs(path, budget, scopes)
	if err != nil {
		return nil, err
	}
	l := &FileLedger{path: path, key: opt.Key, markDir: opt.HighWaterMarkDir}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("privacy: create ledger: %w", err)
	}
	if l.file, err = resolvePath(path); err != nil {
		return nil, fmt.Errorf("privacy: create ledger %s: %w", path, err)
	}
	// Refused before even the lock file is made when the marks' directory
	// is unwritable (the mark's name, known under the lock, is checked
	// again there).
	if err := l.markDirWritable(filepath.Join(l.markDir, markPrefix+"….hwm")); err != nil {
		return nil, err
	}
	unlock, err := l.lock(ctx, syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, st, migrated, err := l.readOrMigrate()
	if migrated && err != nil {
		return nil, err
	}
	fresh := errors.Is(err, fs.ErrNotExist)
	if fresh {
		// A ledger deleted where its mark survives is not started afresh.
		if err := l.refuseIfMarked(""); err != nil {
			return nil, err
		}
		integrity := integritySHA256
		if opt.Key != nil {
			integrity = integrityHMAC
		}
		f = &ledgerFile{ledgerHeader: ledgerHeader{Format: ledgerFormat, Version: ledgerVersion, Budget: budget,
			RhoBudget: rhoMax, Accounting: AccountingCKS20, Integrity: integrity, CreatedAt: now()}}
		st = &ledgerState{scopes: map[string]*scopeState{}}
	} else if err != nil {
		return nil, err
	} else if budget != f.Budget {
		return nil, fmt.Errorf("%w: %s was created with %v, not %v; a budget is never changed",
			ErrBudgetMismatch, path, f.Budget, budget)
	}
	added, err := l.addScopes(f, st, scopes)
	if err != nil {
		return nil, err
	}
	changed := fresh || migrated || added
	// A keyed ledger whose mark cannot be written is refused before
	// anything is written.
	if chain, err := l.chainID(f); err != nil {
		return nil, err
	} else if err := l.markWritable(chain); err != nil {
		return nil, err
	}
	if changed {
		if err := l.write(f); err != nil {
			return nil, err
		}
	}
	if err := l.writeMark(f); err != nil {
		if fresh {
			os.Remove(l.file) // nothing is left behind: no charge is in it yet
		}
		return nil, err
	}
	l.budget, l.rhoMax = f.Budget, f.RhoBudget
	return l, nil
}

// checkCreateArgs checks CreateFileLedger's arguments and returns the
// budget's ρ.
func checkCreateArgs(path string, budget Budget, scopes []string) (float64, error) {
	if path == "" {
		return 0, &ArgumentError{Func: "CreateFileLedger", Param: "path", Reason: "must not be empty"}
	}
	if err := budget.Validate(); err != nil {
		return 0, err
	}
	for _, s := range scopes {
		if err := CheckName("scope", s); err != nil {
			return 0, err
		}
	}
	return budget.Rho()
}

// readOrMigrate reads the ledger, migrating a version 1 ledger (which read
// refuses as corrupt) to the version 2 chain — by CreateFileLedger, never
// silently. migrated reports that a version 1 ledger was found; an error
// with migrated set means its migration failed. Without migration the
// result is read's.
func (l *FileLedger) readOrMigrate() (f *ledgerFile, st *ledgerState, migrated bool, err error) {
	f, st, err = l.read()
	if ce := (*LedgerCorruptError)(nil); errors.As(err, &ce) {
		data, rerr := os.ReadFile(l.file)
		if v1, isV1, verr := parseV1(data); rerr == nil && isV1 {
			if verr != nil {
				return nil, nil, true, &LedgerCorruptError{Path: l.path, Reason: verr.Error()}
			}
			if err := l.migratable(); err != nil {
				return nil, nil, true, err
			}
			if f, st, err = l.migrateV1(v1); err != nil {
				return nil, nil, true, err
			}
			return f, st, true, nil
		}
	}
	return f, st, false, err
}

// addScopes appends a scope entry to f for each of scopes not in st yet
// and reports whether it added any.
func (l *FileLedger) addScopes(f *ledgerFile, st *ledgerState, scopes []string) (bool, error) {
	added := false
	for _, s := range scopes {
		if st.scopes[s] == nil {
			if err := l.appendEntry(f, ledgerEntry{Kind: "scope", Scope: s}); err != nil {
				return false, err
			}
			st.scopes[s] = &scopeState{releases: map[string]bool{}}
			added = true
		}
	}
	return added, nil
}

// OpenFileLedger opens the existing ledger at path; it never creates one
// (a missing file is an error wrapping ErrNoLedger: CreateFileLedger makes it).
func OpenFileLedger(path string, opt FileLedgerOptions) (*FileLedger, error) {
	if path == "" {
		return nil, &ArgumentError{Func: "OpenFileLedger", Param: "path", Reason: "must not be empty"}
	}
	l := &FileLedger{path: path, key: opt.Key, markDir: opt.HighWaterMarkDir, readOnly: opt.ReadOnly}
	var err error
	if l.file, err = resolvePath(path); errors.Is(err, fs.ErrNotExist) {
		// Its directory is missing too: the path as written, cleaned.
		if l.file, err = filepath.Abs(path); err != nil {
			return nil, fmt.Errorf("privacy: open ledger %s: %w", path, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("privacy: open ledger %s: %w", path, err)
	}
	if _, err := os.Stat(l.file); errors.Is(err, fs.ErrNotExist) {
		if err := l.refuseIfMarked(""); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s", ErrNoLedger, path)
	}
	unlock, err := l.lock(context.Background(), syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, _, err := l.read()
	if errors.Is(err, fs.ErrNotExist) {
		if err := l.refuseIfMarked(""); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s", ErrNoLedger, path)
	}
	if err != nil {
		return nil, err
	}
	l.budget, l.rhoMax = f.Budget, f.RhoBudget
	return l, nil
}

// target is the file read, written and locked: the resolved path (a
// FileLedger built without Create or Open uses its path as given).
func (l *FileLedger) target() string {
	if l.file != "" {
		return l.file
	}
	return l.path
}

// Path returns the ledger's file path.
func (l *FileLedger) Path() string { return l.path }

// Budget returns the (ε, δ) budget of every scope and its ρ_max.
func (l *FileLedger) Budget() (Budget, float64) { return l.budget, l.rhoMax }

// Charge implements Ledger. A scope never created is refused with an
// error wrapping ErrNoScope.
func (l *FileLedger) Charge(ctx context.Context, c Charge) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if l.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, l.path)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	unlock, err := l.lock(ctx, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	f, st, err := l.read()
	if err != nil {
		return err
	}
	sc := st.scopes[c.Scope]
	if sc == nil {
		return fmt.Errorf("privacy: ledger %s: scope %q: %w", l.path, c.Scope, ErrNoScope)
	}
	if sc.releases[c.ReleaseID] {
		return fmt.Errorf("privacy: ledger %s: scope %q release %q: %w", l.path, c.Scope, c.ReleaseID, ErrAlreadyCharged)
	}
	if err := f.Budget.Admit(f.RhoBudget, c.Scope, len(sc.releases), &sc.spend, c); err != nil {
		return err
	}
	// A keyed ledger that cannot write its mark charges nothing.
	if chain, err := l.chainID(f); err != nil {
		return err
	} else if err := l.markWritable(chain); err != nil {
		return err
	}
	if err := l.appendEntry(f, ledgerEntry{Kind: "charge", Scope: c.Scope, ReleaseID: c.ReleaseID, Rho: c.Rho, Epsilon: c.Epsilon, Delta: c.Delta}); err != nil {
		return err
	}
	if err := l.write(f); err != nil {
		return err
	}
	if err := l.writeMark(f); err != nil {
		// The charge stands (the mark lags, which raises no false alarm),
		// but nothing is released on it.
		var me *HighWaterMarkError
		if errors.As(err, &me) {
			me.Charged = true
		}
		return err
	}
	return nil
}

// Charged implements ChargeLookup. A scope never created is an error
// wrapping ErrNoScope.
func (l *FileLedger) Charged(ctx context.Context, scope, releaseID string) (bool, error) {
	unlock, err := l.lock(ctx, syscall.LOCK_SH)
	if err != nil {
		return false, err
	}
	defer unlock()
	_, st, err := l.read()
	if err != nil {
		return false, err
	}
	sc := st.scopes[scope]
	if sc == nil {
		return false, fmt.Errorf("privacy: ledger %s: scope %q: %w", l.path, scope, ErrNoScope)
	}
	return sc.releases[releaseID], nil
}

// Balance implements Ledger. A scope never created is an error wrapping
// ErrNoScope; scope "" lists every created scope.
func (l *FileLedger) Balance(ctx context.Context, scope string) ([]Balance, error) {
	unlock, err := l.lock(ctx, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	f, st, err := l.read()
	if err != nil {
		return nil, err
	}
	var names []string
	if scope != "" {
		if st.scopes[scope] == nil {
			return nil, fmt.Errorf("privacy: ledger %s: scope %q: %w", l.path, scope, ErrNoScope)
		}
		names = []string{scope}
	} else {
		for s := range st.scopes {
			names = append(names, s)
		}
		sort.Strings(names)
	}
	out := make([]Balance, 0, len(names))
	for _, s := range names {
		sc := st.scopes[s]
		out = append(out, f.Budget.BalanceOf(s, len(sc.releases), f.RhoBudget, &sc.spend))
	}
	return out, nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

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

// lock takes flock(2) of the given kind on LockPath(file) (flockWait); a
// read-only ledger takes a shared lock on it only if it exists. It then
// locks the same way the "file.lock" an earlier version made, if there is
// one (flockLegacy): the same order in every process, so no deadlock.
func (l *FileLedger) lock(ctx context.Context, how int) (func(), error) {
	var unlock, unlockLegacy func()
	var err error
	if l.readOnly {
		unlock, err = flockExisting(ctx, LockPath(l.target()))
	} else {
		unlock, err = flockWait(ctx, LockPath(l.target()), how, nil)
	}
	if err == nil {
		if unlockLegacy, err = flockLegacy(ctx, l.target()+".lock", how); err != nil {
			unlock()
		}
	}
	switch {
	case err == nil:
		return func() { unlockLegacy(); unlock() }, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("privacy: lock ledger %s: %w", l.path, err)
	}
	return nil, fmt.Errorf("privacy: lock ledger: %w", err)
}

// link returns hash_i = H(prev ‖ data) with H keyed by the ledger key
// when there is one.
func (l *FileLedger) link(prev string, data []byte) string {
	var h hash.Hash
	if l.key != nil {
		h = hmac.New(sha256.New, l.key[:])
	} else {
		h = sha256.New()
	}
	h.Write([]byte(prev))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (l *FileLedger) genesis(h *ledgerHeader) (string, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	return l.link("", b), nil
}

// entryHash is the chain link of e after prev (e.Hash excluded).
func (l *FileLedger) entryHash(prev string, e ledgerEntry) (string, error) {
	e.Hash = ""
	b, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	return l.link(prev, b), nil
}

// appendEntry adds e at the end of f's chain.
func (l *FileLedger) appendEntry(f *ledgerFile, e ledgerEntry) error {
	prev, err := l.genesis(&f.ledgerHeader)
	if err != nil {
		return fmt.Errorf("privacy: ledger: %w", err)
	}
	if n := len(f.Entries); n > 0 {
		prev = f.Entries[n-1].Hash
	}
	e.Seq, e.Time = len(f.Entries)+1, now()
	if e.Hash, err = l.entryHash(prev, e); err != nil {
		return fmt.Errorf("privacy: ledger: %w", err)
	}
	f.Entries = append(f.Entries, e)
	return nil
}

// read loads the ledger file, verifies its chain and recomputes every
// scope's spend. The caller holds the lock.
func (l *FileLedger) read() (*ledgerFile, *ledgerState, error) {
	data, err := os.ReadFile(l.target())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("privacy: read ledger: %w", err)
	}
	f, err := l.decode(data)
	if err != nil {
		return nil, nil, err
	}
	if err := l.checkHeader(f); err != nil {
		return nil, nil, err
	}
	prev, err := l.genesis(&f.ledgerHeader)
	if err != nil {
		return nil, nil, corruptf(l.path, "%v", err)
	}
	if head := l.head(f); !hmac.Equal([]byte(head), []byte(f.Head)) {
		return nil, nil, corruptf(l.path, "the end of the hash chain does not match its seal (entries removed or added, or the wrong ledger key)")
	}
	st, err := l.replay(f, prev)
	if err != nil {
		return nil, nil, err
	}
	if err := l.checkMark(f); err != nil {
		return nil, nil, err
	}
	return f, st, nil
}

// decode parses a ledger file's JSON; a version 1 ledger is refused as
// corrupt, naming its migration.
func (l *FileLedger) decode(data []byte) (*ledgerFile, error) {
	corrupt := func(format string, a ...any) error { return corruptf(l.path, format, a...) }
	var f ledgerFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var probe struct {
			Format  string `json:"format"`
			Version int    `json:"version"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Format == ledgerFormat && probe.Version == 1 {
			if err := l.refuseIfMarked("format version 1 (a plain checksum, forgeable)"); err != nil {
				return nil, err
			}
			return nil, corrupt("format version 1 (a plain checksum, forgeable): %s with the same totals and a ledger key (%s) migrates it to a keyed hash chain", ParamCreateLedger, ParamLedgerKey)
		}
		return nil, corrupt("not valid ledger JSON: %v", err)
	}
	return &f, nil
}

// checkHeader checks a decoded ledger's format, integrity mode (against
// l's key) and budget.
func (l *FileLedger) checkHeader(f *ledgerFile) error {
	corrupt := func(format string, a ...any) error { return corruptf(l.path, format, a...) }
	if f.Format != ledgerFormat || f.Version != ledgerVersion {
		return corrupt("format %q version %d, want %q version %d", f.Format, f.Version, ledgerFormat, ledgerVersion)
	}
	switch {
	case f.Integrity == integrityHMAC && l.key == nil:
		return &LedgerKeyError{Path: l.path, Keyed: true}
	case f.Integrity == integritySHA256 && l.key != nil:
		if err := l.refuseIfMarked("an unkeyed (SHA-256) chain, forgeable by anyone who can write the file"); err != nil {
			return err
		}
		return &LedgerKeyError{Path: l.path, Keyed: false}
	case f.Integrity != integrityHMAC && f.Integrity != integritySHA256:
		return corrupt("unknown integrity mode %q", f.Integrity)
	}
	if err := f.Budget.Validate(); err != nil {
		return corrupt("invalid budget: %v", err)
	}
	if want, err := f.Budget.Rho(); err != nil || want != f.RhoBudget {
		return corrupt("ρ budget %v does not match the budget ε=%g, δ=%g", f.RhoBudget, f.Budget.Epsilon, f.Budget.Delta)
	}
	return nil
}

// replay verifies f's hash chain from prev (the genesis link) and
// recomputes every scope's spend.
func (l *FileLedger) replay(f *ledgerFile, prev string) (*ledgerState, error) {
	corrupt := func(format string, a ...any) error { return corruptf(l.path, format, a...) }
	st := &ledgerState{scopes: map[string]*scopeState{}}
	for i, e := range f.Entries {
		h, err := l.entryHash(prev, e)
		if err != nil || !hmac.Equal([]byte(h), []byte(e.Hash)) {
			return nil, corrupt("entry %d breaks the hash chain (edited, removed or reordered entries, or the wrong ledger key)", i+1)
		}
		prev = h
		if e.Seq != i+1 {
			return nil, corrupt("entry %d has sequence number %d", i+1, e.Seq)
		}
		sc := st.scopes[e.Scope]
		switch e.Kind {
		case "scope":
			if sc != nil || CheckName("scope", e.Scope) != nil {
				return nil, corrupt("entry %d creates scope %q twice or with an invalid name", i+1, e.Scope)
			}
			st.scopes[e.Scope] = &scopeState{releases: map[string]bool{}}
		case "charge":
			c := Charge{Scope: e.Scope, ReleaseID: e.ReleaseID, Rho: e.Rho, Epsilon: e.Epsilon, Delta: e.Delta}
			if sc == nil || sc.releases[e.ReleaseID] || c.Validate() != nil {
				return nil, corrupt("entry %d is not a valid charge of a created scope", i+1)
			}
			if f.Budget.Replay(f.RhoBudget, e.Scope, len(sc.releases), &sc.spend, c) != nil { // history: Replay, not Admit
				return nil, corrupt("scope %q spends more than its budget", e.Scope)
			}
			sc.releases[e.ReleaseID] = true
			sc.spend.Add(c)
		default:
			return nil, corrupt("entry %d has unknown kind %q", i+1, e.Kind)
		}
	}
	return st, nil
}

// head seals the chain's end: H("head" ‖ last link ‖ entry count).
func (l *FileLedger) head(f *ledgerFile) string {
	last, _ := l.genesis(&f.ledgerHeader)
	if n := len(f.Entries); n > 0 {
		last = f.Entries[n-1].Hash
	}
	return l.link("head", []byte(fmt.Sprintf("%s/%d", last, len(f.Entries))))
}

// write stores f atomically, sealing its chain. The caller holds the
// exclusive lock.
func (l *FileLedger) write(f *ledgerFile) error {
	if f.Entries == nil {
		f.Entries = []ledgerEntry{}
	}
	f.Head = l.head(f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("privacy: write ledger: %w", err)
	}
	return writeFileAtomic(l.target(), append(data, '\n'), 0o600)
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
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("privacy: write %s: %w", path, err)
	}
	return commitTemp(tmp, path, perm)
}

// commitTemp sets perm on the written temporary file tmp, fsyncs it,
// renames it over path and fsyncs the directory; on error tmp is removed.
func commitTemp(tmp *os.File, path string, perm fs.FileMode) (err error) {
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
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
	dir := filepath.Dir(path)
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

// migratable refuses to migrate a version 1 file (a forgeable checksum)
// without the ledger key, which seals the migrated chain, and where the
// high-water mark shows that a version 2 chain was already written here:
// a version 1 file in its place is an older copy or a forgery.
func (l *FileLedger) migratable() error {
	if l.key == nil {
		return corruptf(l.path, "format version 1: its checksum is forgeable by anyone who can write the file, so %s migrates it only with a ledger key (%s FILE, from keygen), which seals the migrated chain", ParamCreateLedger, ParamLedgerKey)
	}
	return l.refuseIfMarked("format version 1")
}
