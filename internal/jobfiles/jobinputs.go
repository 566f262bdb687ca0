package jobfiles

import (
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// A job's spec completed from the configured keys and the files its
// command names, and checked, before anything is opened.

// ReadReleaseInputs completes spec from the configuration and the files
// it names — the ledger key and the certificate at spec.CertificatePath,
// checked (job.ReleaseSpec.Check), then, as ReadAnswerKeys, the noise
// source; the mechanism and the ledger. The raw readings are read apart
// (ReadingsFrom).
func ReadReleaseInputs(cfg *config.Config, spec *job.ReleaseSpec) error {
	var err error
	if spec.LedgerKey, err = cfg.LedgerKey(); err != nil {
		return err
	}
	if spec.CertificatePath != "" {
		c, err := sensitivity.LoadCertificate(spec.CertificatePath)
		var key []byte
		if err == nil {
			key, err = privacy.CacheMACKey(spec.LedgerKey)
		}
		if err == nil {
			err = c.CheckMAC(key)
		}
		if err != nil {
			return errkind.Inputf("%s: %w", job.ParamCertificate, err)
		}
		spec.Certificate = &c
	}
	if err := spec.Check(); err != nil {
		return err
	}
	if spec.Noise, err = noise(cfg); err != nil {
		return err
	}
	if spec.Mechanism, err = privacy.ParseMechanism(cfg.Privacy.Mechanism); err != nil {
		return errkind.Inputf("%s: %v", privacy.ParamMechanism, err)
	}
	if r, ok := spec.Mechanism.Spec(); ok {
		if err := r.CheckEpsilon(spec.Epsilon); err != nil {
			return err
		}
	}
	spec.Ledger, err = cfg.LedgerName()
	return err
}

// ReadAnswerKeys completes a private answer's spec from the configured
// keys and checks it (job.AnswerSpec.Check): the ledger key its answer
// cache is sealed under, when it has a cache, and the noise source, keyed
// when a noise key is configured (crypto/rand otherwise).
func ReadAnswerKeys(cfg *config.Config, spec *job.AnswerSpec) error {
	spec.Noise = privacy.CryptoNoise()
	if spec.CachePath != "" {
		key, err := cfg.LedgerKey()
		if err != nil {
			return err
		}
		spec.LedgerKey = key
	}
	if err := spec.Check(); err != nil {
		return err
	}
	var err error
	spec.Noise, err = noise(cfg)
	return err
}

// ReadEpochInputs completes an epoch's spec (stores.EpochInputs.Spec) as
// ReadReleaseInputs completes a release's, and refuses a mechanism
// sensors cannot draw (privacy.Mechanisms' AtSensor): they draw the
// discrete Gaussian.
func ReadEpochInputs(cfg *config.Config, spec *job.ReleaseSpec) error {
	if err := ReadReleaseInputs(cfg, spec); err != nil {
		return err
	}
	if m, err := privacy.ReleaseMechanism(spec.Mechanism); err == nil && !m.AtSensor { // privacy's mechanism table says
		return errkind.Inputf("%s %s is not offered in local mode: sensors draw the discrete Gaussian of the default mechanism", privacy.ParamMechanism, m.Name)
	}
	return nil
}
