package privacy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Certificates a command stores for reuse (a Δ2 cache, an answer
// certificate, the parts of a sharded audit) are trusted instead of
// computed: an answer certificate with its classes edited publishes
// distributions the audit never checked. With a ledger key they are sealed
// under its certificate subkey; without one, under this installation's
// key, created once with mode 0600 in the user's cache directory — so a
// certificate no key authenticates (written elsewhere, edited, forged) is
// never taken as it is: it is recomputed.

// InstallationKeyFile is the installation key's file name under
// os.UserCacheDir()/graphcloak ($XDG_CACHE_HOME/graphcloak on Linux).
const InstallationKeyFile = "certificate.key"

// InstallationKeyPath returns where InstallationKey keeps its key.
func InstallationKeyPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("privacy: installation key: %w", err)
	}
	return filepath.Join(dir, "graphcloak", InstallationKeyFile), nil
}

// InstallationKey returns this installation's certificate key, creating it
// (crypto/rand, mode 0600) the first time. Processes that create it at once
// agree on one: each writes its own temporary file and links it into place,
// which only the first link does; everyone then reads the file in place.
func InstallationKey() (*Key, error) {
	path, err := InstallationKeyPath()
	if err != nil {
		return nil, err
	}
	k, err := LoadKey(path)
	if err == nil {
		return &k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("privacy: installation key: %w", err)
	}
	fresh, err := GenerateKey()
	if err != nil {
		return nil, err
	}
	tmp := fmt.Sprintf("%s.%s.tmp", path, NewReleaseID())
	if err := WriteKeyFile(tmp, fresh); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("privacy: installation key: %w", err)
	}
	k, err = LoadKey(path)
	if err != nil {
		return nil, err
	}
	return &k, nil
}

// CacheMACKey returns the key stored certificates are sealed under and
// checked with: the ledger key's certificate subkey (CertificateMACKey)
// when there is a ledger key, else this installation's (InstallationKey).
func CacheMACKey(ledger *Key) ([]byte, error) {
	if ledger != nil {
		return ledger.CertificateMACKey(), nil
	}
	k, err := InstallationKey()
	if err != nil {
		return nil, err
	}
	return k.CertificateMACKey(), nil
}
