package main

import (
	"context"
	"fmt"

	"github.com/graphcloak/graphcloak/privacy"
)

// affordabilityMargin: the ρ a release charges is the target ρ of (ε, δ)
// less σ's rounding up on the noise grid (relative < 1e-5); the check
// before Δ2 refuses only what the charge would certainly refuse.
const affordabilityMargin = 1e-3

// checkAffordable runs, before any expensive step (Δ2), the checks the
// ledger would make when charging: the scope exists; a new epoch's ρ fits
// in what is left (else the budget error, exit 5); an epoch already
// charged is a retry — to its own release file a no-op (done), elsewhere
// exit 7. ρ depends on (ε, δ) and the mechanism only, not on Δ2.
func checkAffordable(ctx context.Context, st *releaseState) (done bool, err error) {
	cfg := &st.opts.g.cfg.Config
	scope, epoch := cfg.Privacy.Scope, st.sum.Epoch
	if lookup, ok := st.ledger.(privacy.ChargeLookup); ok && epoch != "" {
		charged, err := lookup.Charged(ctx, scope, epoch)
		if err != nil {
			return false, err
		}
		if charged {
			cause := fmt.Errorf("scope %q release %q: %w", scope, epoch, privacy.ErrAlreadyCharged)
			if st.pending != nil {
				err := alreadyPublishedFile(st.opts, st.sum, cause)
				return err == nil, err
			}
			return false, chargedError{epoch: epoch, err: fmt.Errorf("no run stored its values: %w", cause)}
		}
	}
	b, err := st.ledger.Balance(ctx, scope)
	if err != nil || len(b) != 1 {
		return false, err
	}
	cal, err := privacy.CalibrateRelease(1, cfg.Privacy.Epsilon, cfg.Privacy.Delta, 1, st.in.mech)
	if err != nil {
		return false, inputError{err}
	}
	if cal.Rho*(1-affordabilityMargin) > b[0].RhoRemaining {
		return false, privacy.NewBudgetError(privacy.Charge{Scope: scope, ReleaseID: epoch, Rho: cal.Rho},
			b[0].RhoSpent, b[0].RhoBudget, b[0].Budget)
	}
	return false, nil
}
