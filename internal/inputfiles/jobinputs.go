package inputfiles

import (
	"io"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// A job's spec completed from the configured keys and the files its
// command names, and checked, before anything is opened.

// ReleaseFiles name a release's local inputs, read before anything is
// connected.
type ReleaseFiles struct {
	// Values is the raw readings' CSV file, or "-" for Stdin ("": the
	// configured value property is read with the graph instead).
	Values string
	Stdin  io.Reader
	// Certificate is a Δ2 certificate file ("": none), checked against
	// the ledger key's MAC.
	Certificate string
}

// ReadReleaseInputs completes spec from the configuration and files — the
// ledger key, the certificate, the mechanism, the noise source, the
// ledger — checks it (job.ReleaseSpec.Check) and returns the raw
// readings of files.Values (nil without one).
func ReadReleaseInputs(cfg *config.Config, spec *job.ReleaseSpec, files ReleaseFiles) (map[string]float64, error) {
	var err error
	if spec.LedgerKey, err = LedgerKey(cfg); err != nil {
		return nil, err
	}
	if files.Certificate != "" {
		c, err := sensitivity.LoadCertificate(files.Certificate)
		var key []byte
		if err == nil {
			key, err = privacy.CacheMACKey(spec.LedgerKey)
		}
		if err == nil {
			err = c.CheckMAC(key)
		}
		if err != nil {
			return nil, errkind.Inputf("%s: %w", job.ParamCertificate, err)
		}
		spec.Certificate = &c
	}
	if err := spec.Check(); err != nil {
		return nil, err
	}
	header, _ := csvin.ParseHeader(cfg.Input.Header) // validated by config
	if spec.Mechanism, err = privacy.ParseMechanism(cfg.Privacy.Mechanism); err != nil {
		return nil, errkind.Inputf("%s: %v", privacy.ParamMechanism, err)
	}
	if spec.Noise, err = noise(cfg); err != nil {
		return nil, err
	}
	var readings map[string]float64
	spec.ValuesFrom = "property:" + spec.Projection.ValueProperty
	if files.Values != "" {
		spec.ValuesFrom = "csv:" + files.Values
		if readings, err = ReadReadings(files.Stdin, files.Values, header); err != nil {
			return nil, err
		}
	}
	if spec.Ledger, err = cfg.LedgerName(); err != nil {
		return nil, err
	}
	return readings, nil
}

// ReadAnswerKeys completes a private answer's spec from the configured
// keys and checks it (job.AnswerSpec.Check): the ledger key its answer
// cache is sealed under, when it has a cache, and the noise source, keyed
// when a noise key is configured (crypto/rand otherwise).
func ReadAnswerKeys(cfg *config.Config, spec *job.AnswerSpec) error {
	spec.Noise = privacy.CryptoNoise()
	if spec.CachePath != "" {
		key, err := LedgerKey(cfg)
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
