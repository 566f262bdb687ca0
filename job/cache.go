package job

import (
	"errors"
	"io/fs"
	"log/slog"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// cachedSensitivity returns the Δ2 of the certificate at path when it
// verifies against graph, τ and α, was computed by this version of
// graphcloak (software) and (with a ledger key) carries its valid MAC;
// otherwise nil (Δ2 is then computed and the certificate rewritten by
// storeSensitivity). A missing, unreadable, stale or unauthenticated
// cache is never an error: it only costs the computation.
func cachedSensitivity(log *slog.Logger, path string, graph *laplacian.Graph, tau, alpha float64, ledgerKey *privacy.Key, software string) *sensitivity.Result {
	c, err := sensitivity.LoadCertificate(path)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("no sensitivity certificate cached yet: computing Δ2", "cache", path)
		return nil
	}
	if err != nil {
		log.Warn("sensitivity cache unreadable: computing Δ2 and replacing it", "cache", path, "error", err)
		return nil
	}
	if err := c.CheckMAC(ledgerKey.CertificateMACKey()); err != nil {
		log.Warn("sensitivity cache not authenticated under the ledger key: computing Δ2 and replacing it", "cache", path, "reason", err)
		return nil
	}
	if c.Software != software {
		log.Info("sensitivity certificate made by another version: computing Δ2", "cache", path, "certificateSoftware", c.Software)
		return nil
	}
	s, err := c.Verify(graph, tau, alpha)
	if err != nil {
		log.Info("sensitivity certificate does not match (graph or τ changed): computing Δ2", "cache", path, "reason", err)
		return nil
	}
	log.Info("Δ2 reused from the certificate: the graph is unchanged", "cache", path, "delta2", s.Delta2)
	return &s
}

// storeSensitivity writes the certificate of a freshly computed Δ2 to the
// cache. A failure is logged, not fatal: the release itself is complete.
func storeSensitivity(log *slog.Logger, path string, graph *laplacian.Graph, s sensitivity.Result, tau float64, ledgerKey *privacy.Key, software string) {
	c, err := sensitivity.NewCertificate(graph, s, tau, software)
	if err == nil {
		err = c.Seal(ledgerKey.CertificateMACKey())
	}
	if err == nil {
		err = sensitivity.SaveCertificate(path, c)
	}
	if err != nil {
		log.Warn("could not store the sensitivity certificate", "cache", path, "error", err)
		return
	}
	log.Info("sensitivity certificate stored", "cache", path, "delta2", s.Delta2)
}
