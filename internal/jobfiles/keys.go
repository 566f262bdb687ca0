package jobfiles

import (
	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/buildinfo"
	"github.com/graphcloak/graphcloak/privacy"
)

// The configured key files: the ledger key (config.Config.LedgerKey: it
// keys a file ledger's hash chain and seals certificates) and the noise
// key (keyed noise).

// CertificateMACKey is the key certificates are sealed under and checked
// against: the configured ledger key's certificate subkey, or without a
// ledger key this installation's (privacy.CacheMACKey): a certificate no
// key authenticates is never trusted.
func CertificateMACKey(cfg *config.Config) ([]byte, error) {
	key, err := cfg.LedgerKey()
	if err != nil {
		return nil, err
	}
	return privacy.CacheMACKey(key)
}

// AnswerCache is the answer certificate at path (answer.Cache), sealed
// under CertificateMACKey and stamped with this build.
func AnswerCache(cfg *config.Config, path string) (answer.Cache, error) {
	key, err := CertificateMACKey(cfg)
	if err != nil {
		return answer.Cache{}, err
	}
	return answer.Cache{Path: path, MACKey: key, Software: buildinfo.Read().String()}, nil
}

// noise is the configured noise source: keyed when a noise key is
// configured, crypto/rand otherwise.
func noise(cfg *config.Config) (privacy.NoiseSource, error) {
	if cfg.Privacy.KeyFile == "" {
		return privacy.CryptoNoise(), nil
	}
	key, err := privacy.LoadKey(cfg.Privacy.KeyFile)
	if err != nil {
		return privacy.NoiseSource{}, err
	}
	return privacy.KeyedNoise(key), nil
}
