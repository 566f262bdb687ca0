package job

import (
	"errors"
	"io/fs"
	"log/slog"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// The Δ2 cache's file, MAC and verification are sensitivity.Cache; what
// a release does with it is decided here: a cache that cannot be used is
// never an error, it only costs the computation, and each reason is
// logged at the level an operator needs (a forged or unreadable file is
// a warning, a changed graph or a new version is routine).

// cache is the release's Δ2 cache of g at τ (nil: none): the file
// CachePath names, sealed under the ledger key or, without one, this
// installation's (privacy.CacheMACKey), else the work store's certificate
// (the one plan, audit and every other command keep and reuse); nil too
// when that key cannot be had (Δ2 is then computed, never trusted
// unauthenticated).
func (s *ReleaseSpec) cache(g *laplacian.Graph, tau float64) *sensitivity.Cache {
	if s.CachePath == "" {
		return s.Store.Sensitivity(g, tau, s.Alpha)
	}
	key, err := privacy.CacheMACKey(s.LedgerKey)
	if err != nil {
		return nil
	}
	return &sensitivity.Cache{Path: s.CachePath, MACKey: key, Software: s.Software}
}

// cachedSensitivity is the release's cached Δ2 of g at τ (nil: compute
// it). From the work store (no file of its own) a bound a time budget
// stopped at is taken only by a release with a time budget: a release
// computing Δ2 to completion gets the exact value, as it would without
// the store.
func (s *ReleaseSpec) cachedSensitivity(log *slog.Logger, c *sensitivity.Cache, g *laplacian.Graph, tau float64) *sensitivity.Result {
	r := cachedSensitivity(log, c, g, tau, s.Alpha)
	if r != nil && s.CachePath == "" && s.TimeBudget == 0 && !r.Exact {
		log.Info("the store's Δ2 is a bound a time budget stopped at: computing Δ2 to completion", "cache", c.Path, "delta2", r.Delta2)
		return nil
	}
	return r
}

// keepSensitivity keeps a freshly computed Δ2 in the release's cache: its
// file, or the work store when it is exact (a bound a time budget stopped
// at is the release's own, not the store's), trimmed to its bound.
func (s *ReleaseSpec) keepSensitivity(log *slog.Logger, c *sensitivity.Cache, g *laplacian.Graph, r sensitivity.Result, tau float64) {
	if s.CachePath == "" && !r.Exact {
		return
	}
	storeSensitivity(log, c, g, r, tau)
	s.Store.Trim() // the store's bound (nil: a file of its own)
}

// cachedSensitivity returns the cached Δ2 for graph at τ and α, or nil
// (Δ2 is then computed and the certificate replaced by storeSensitivity).
func cachedSensitivity(log *slog.Logger, c *sensitivity.Cache, graph *laplacian.Graph, tau, alpha float64) *sensitivity.Result {
	s, err := c.Load(graph, tau, alpha)
	var mac *sensitivity.CertificateMACError
	var stale *sensitivity.StaleCacheError
	switch {
	case err == nil:
		log.Info("Δ2 reused from the certificate: the graph is unchanged", "cache", c.Path, "delta2", s.Delta2)
		return &s
	case errors.Is(err, fs.ErrNotExist):
		log.Info("no sensitivity certificate cached yet: computing Δ2", "cache", c.Path)
	case errors.As(err, &mac):
		log.Warn("sensitivity cache not authenticated under the ledger key: computing Δ2 and replacing it", "cache", c.Path, "reason", err)
	case errors.As(err, &stale):
		log.Info("sensitivity certificate made by another version: computing Δ2", "cache", c.Path, "certificateSoftware", stale.Software)
	case errors.Is(err, sensitivity.ErrCertificateMismatch):
		log.Info("sensitivity certificate does not match (graph or τ changed): computing Δ2", "cache", c.Path, "reason", err)
	default:
		log.Warn("sensitivity cache unreadable: computing Δ2 and replacing it", "cache", c.Path, "error", err)
	}
	return nil
}

// storeSensitivity replaces the cached certificate with a freshly
// computed Δ2. A failure is logged, not fatal: the release is complete.
func storeSensitivity(log *slog.Logger, c *sensitivity.Cache, graph *laplacian.Graph, s sensitivity.Result, tau float64) {
	if err := c.Store(graph, s, tau); err != nil {
		log.Warn("could not store the sensitivity certificate", "cache", c.Path, "error", err)
		return
	}
	log.Info("sensitivity certificate stored", "cache", c.Path, "delta2", s.Delta2)
}
