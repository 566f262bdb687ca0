package local

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/graphcloak/graphcloak/sensor"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/privacy"
)

// OpenRequest is an epoch to open. Order holds everything the order says
// except what OpenEpoch sets: Version, Kind, ReleaseID and
// CoordinatorKey. Its σ, grid and ρ must be privacy.CalibrateRelease's
// for its Δ2 (the caller certified Δ2 as a release does).
type OpenRequest struct {
	Order Order
	// Out is the order file written (signed envelope, mode 0644).
	Out string
	// Signer is the coordinator's Ed25519 signing key.
	Signer ed25519.PrivateKey
	// Ledger is charged Order.Rho once for (Order.Scope, Order.Epoch).
	Ledger privacy.Ledger
}

// Opened is the outcome of OpenEpoch.
type Opened struct {
	Order    Order
	Envelope []byte
	// Charged: this call charged the ledger. Republished: the order file
	// was there already (nothing charged, nothing drawn). Resumed: an
	// earlier call signed the order and stopped before publishing it; this
	// one published it (charging it unless the earlier call had).
	Charged, Republished, Resumed bool
}

// OrderFileError reports an order file that cannot be (re)published.
type OrderFileError struct {
	Path, Reason string
}

func (e *OrderFileError) Error() string {
	return fmt.Sprintf("local: order file %s: %s", e.Path, e.Reason)
}

// Kind: bad input.
func (*OrderFileError) Kind() errkind.Kind { return errkind.BadInput }

// EpochChargedError reports an epoch charged before whose order is not
// there to re-publish (a central release of the same epoch, or an order
// file removed, or published at another path): it cannot be opened
// without a second charge.
type EpochChargedError struct {
	Scope, Epoch string
	Out          string // the order file looked at (and its pending file beside it)
}

func (e *EpochChargedError) Error() string {
	return fmt.Sprintf("local: epoch %q of scope %q was charged before and its order is not at %s (nor pending beside it): "+
		"give the order file it was opened with to re-publish it (nothing charged), or open a new epoch (a new charge)",
		e.Epoch, e.Scope, e.Out)
}

// Kind: charged.
func (*EpochChargedError) Kind() errkind.Kind { return errkind.Charged }

func (*EpochChargedError) Unwrap() error { return privacy.ErrAlreadyCharged }

// signPending signs want afresh (a new release id) into the pending file,
// refusing an epoch the ledger says is charged already.
func signPending(ctx context.Context, req OpenRequest, want Order, pending string) (Order, []byte, error) {
	if lookup, ok := req.Ledger.(privacy.ChargeLookup); ok {
		charged, err := lookup.Charged(ctx, want.Scope, want.Epoch)
		if err != nil {
			return Order{}, nil, err
		}
		if charged {
			return Order{}, nil, &EpochChargedError{Scope: want.Scope, Epoch: want.Epoch, Out: req.Out}
		}
	}
	want.ReleaseID = privacy.NewReleaseID()
	env, err := sensor.SignOrder(req.Signer, want)
	if err != nil {
		return Order{}, nil, err
	}
	if err := atomicfile.Write(pending, append(env, '\n'), 0o644); err != nil {
		return Order{}, nil, &OrderFileError{Path: req.Out, Reason: fmt.Sprintf("cannot be written: %v", err)}
	}
	return want, env, nil
}

// OpenEpoch opens an epoch: it signs the order, charges the ledger once
// and publishes the order file, in an order that a run stopped anywhere
// can finish without a second charge or a new release id:
//
//  1. the order file at Out exists: it is this epoch's (same scope, epoch
//     and parameters, signed by Signer) and is re-published — nothing
//     charged; anything else there is refused;
//  2. the signed order is written to the pending file beside Out
//     (".NAME.pending"), or an earlier call's pending order of this epoch
//     is taken as it is (its release id);
//  3. the ledger is charged ρ under (scope, epoch) — already charged
//     counts as charged when the pending order was an earlier call's;
//  4. the pending file is renamed to Out.
//
// An epoch charged with no pending or published order (a central release
// of the same epoch) is refused (*EpochChargedError). Concurrent calls
// for the same Out are serialised by a lock beside it.
func OpenEpoch(ctx context.Context, req OpenRequest) (*Opened, error) {
	want := req.Order
	if req.Out == "" || req.Signer == nil || req.Ledger == nil {
		return nil, errors.New("local: OpenEpoch needs an order file path, a signing key and a ledger")
	}
	if len(want.Nodes) == 0 || want.Scope == "" || want.Epoch == "" {
		return nil, errkind.Inputf("local: an epoch needs a scope, an epoch and nodes")
	}
	if !want.NotAfter.After(want.NotBefore) {
		return nil, errkind.Inputf("local: the validity window ends (%s) before it begins (%s)", want.NotAfter.Format(time.RFC3339), want.NotBefore.Format(time.RFC3339))
	}
	pub := req.Signer.Public().(ed25519.PublicKey)
	want.Version, want.Kind, want.CoordinatorKey = 1, OrderKind, hex.EncodeToString(pub)
	dir, base := filepath.Split(req.Out)
	if dir == "" {
		dir = "."
	}
	unlock, err := lockPath(ctx, filepath.Join(dir, "."+base+".lock"))
	if err != nil {
		return nil, &OrderFileError{Path: req.Out, Reason: fmt.Sprintf("cannot be locked: %v", err)}
	}
	defer unlock()

	if o, env, err := readOrderFile(req.Out, pub); err == nil {
		if why := sameEpoch(o, want); why != "" {
			return nil, &OrderFileError{Path: req.Out, Reason: "holds " + why}
		}
		return &Opened{Order: o, Envelope: env, Republished: true}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, &OrderFileError{Path: req.Out, Reason: err.Error()}
	}

	pending := filepath.Join(dir, "."+base+".pending")
	res := &Opened{}
	if o, env, err := readOrderFile(pending, pub); err == nil && sameEpoch(o, want) == "" {
		res.Order, res.Envelope, res.Resumed = o, env, true
	} else {
		if res.Order, res.Envelope, err = signPending(ctx, req, want, pending); err != nil {
			return nil, err
		}
	}
	o := res.Order
	err = req.Ledger.Charge(ctx, privacy.Charge{Scope: o.Scope, ReleaseID: o.Epoch, Rho: o.Rho})
	switch {
	case err == nil:
		res.Charged = true
	case errors.Is(err, privacy.ErrAlreadyCharged) && res.Resumed:
		// The earlier call charged it and stopped before the rename.
	case errors.Is(err, privacy.ErrAlreadyCharged):
		os.Remove(pending)
		return nil, &EpochChargedError{Scope: o.Scope, Epoch: o.Epoch, Out: req.Out}
	default:
		if !res.Resumed {
			os.Remove(pending) // nothing charged: the next call signs afresh
		}
		return nil, err
	}
	if err := os.Rename(pending, req.Out); err != nil {
		return nil, &OrderFileError{Path: req.Out, Reason: fmt.Sprintf("charged but not published (%v): run again to publish it (no new charge)", err)}
	}
	if err := syncDir(dir); err != nil {
		return nil, &OrderFileError{Path: req.Out, Reason: fmt.Sprintf("charged, published, not synced (%v): run again", err)}
	}
	return res, nil
}

// ReadOrderFile reads and verifies a signed order file against the
// coordinator's public key.
func ReadOrderFile(path string, pub ed25519.PublicKey) (Order, []byte, error) {
	o, env, err := readOrderFile(path, pub)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		err = &OrderFileError{Path: path, Reason: err.Error()}
	}
	return o, env, err
}

func readOrderFile(path string, pub ed25519.PublicKey) (Order, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Order{}, nil, err
	}
	o, err := sensor.VerifyOrder(pub, data)
	if err != nil {
		return Order{}, nil, fmt.Errorf("is not an epoch order signed by this coordinator key: %w", err)
	}
	return o, data, nil
}

// sameEpoch says how o differs from the order asked for ("" when it is
// the same epoch with the same parameters; the window and release id are
// o's own).
func sameEpoch(o, want Order) string {
	switch {
	case o.Scope != want.Scope || o.Epoch != want.Epoch:
		return fmt.Sprintf("epoch %q of scope %q, not %q of %q", o.Epoch, o.Scope, want.Epoch, want.Scope)
	case o.Graph != want.Graph:
		return "an order for another graph"
	case o.Tau != want.Tau || o.Alpha != want.Alpha || o.Epsilon != want.Epsilon || o.Delta != want.Delta:
		return fmt.Sprintf("this epoch opened with other parameters (τ %g, α %g, ε %g, δ %g): an epoch is opened once; open a new epoch", o.Tau, o.Alpha, o.Epsilon, o.Delta)
	case !equalStrings(o.Nodes, want.Nodes):
		return "this epoch opened for another node list: open a new epoch"
	}
	return ""
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lockPath takes an exclusive flock(2) on path (created), polling until
// ctx ends.
func lockPath(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Republish returns the order published at out when it is want's epoch
// (Opened.Republished), nil when there is none, and the refusal OpenEpoch
// would give for anything else there: a caller checks it before
// certifying Δ2 again for an epoch already open.
func Republish(out string, signer ed25519.PrivateKey, want Order) (*Opened, error) {
	o, env, err := readOrderFile(out, signer.Public().(ed25519.PublicKey))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &OrderFileError{Path: out, Reason: err.Error()}
	}
	want.Version, want.Kind = 1, OrderKind
	if why := sameEpoch(o, want); why != "" {
		return nil, &OrderFileError{Path: out, Reason: "holds " + why}
	}
	return &Opened{Order: o, Envelope: env, Republished: true}, nil
}
