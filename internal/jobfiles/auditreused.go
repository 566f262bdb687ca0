package jobfiles

import (
	"log/slog"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// ParamAnswerCache is the file a private answer's model is cached in.
const ParamAnswerCache errkind.Param = "answer-cache"

// AuditReused says why a private answer's audit on gr at τ with opt runs
// no pass — the certificate in the file cachePath names (the answer's
// cache), or without one the certificate kept in the store of work in
// cacheDir (WorkStore), verifies — and is "" when it runs one. name says
// how the reader calls the answer's cache.
func AuditReused(cfg *config.Config, cachePath, cacheDir string, logger *slog.Logger, gr *laplacian.Graph, tau float64, opt recovery.CertifierOptions, name func(errkind.Param) string) string {
	if cachePath != "" {
		if cache, err := AnswerCache(cfg, cachePath); err == nil {
			if _, _, err := cache.Load(gr, tau, opt); err == nil {
				return "the certificate at " + name(ParamAnswerCache) + " verifies"
			}
		}
	} else if w, err := WorkStore(cfg, cacheDir, logger); err == nil {
		if cache := w.Answer(gr, tau, opt.Tol, opt.SensorNoise); cache != nil {
			if _, _, err := cache.Load(gr, tau, opt); err == nil {
				return "reused from the store: the certificate kept there verifies"
			}
		}
	}
	return ""
}
