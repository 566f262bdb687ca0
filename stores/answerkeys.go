package stores

import (
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// ReadAnswerKeys completes a private answer's spec from the configured
// keys and checks it (job.AnswerSpec.Check): the ledger key its answer
// cache is sealed under, when it has a cache, and the noise source, keyed
// when a noise key is configured (crypto/rand otherwise).
func ReadAnswerKeys(cfg *config.Config, spec *job.AnswerSpec) error {
	spec.Noise = privacy.CryptoNoise()
	if spec.CachePath != "" {
		lopt, err := ledgerOptions(cfg)
		if err != nil {
			return err
		}
		spec.LedgerKey = lopt.Key
	}
	if err := spec.Check(); err != nil {
		return err
	}
	if cfg.Privacy.KeyFile != "" {
		key, err := privacy.LoadKey(cfg.Privacy.KeyFile)
		if err != nil {
			return err
		}
		spec.Noise = privacy.KeyedNoise(key)
	}
	return nil
}
