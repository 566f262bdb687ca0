package sensitivity

import (
	"fmt"

	"github.com/graphcloak/graphcloak/laplacian"
)

// Cache is a certificate file reused from one release to the next
// (a release's sensitivity cache): Load returns its Δ2 only while the
// certificate is authentic, made by this build, and verifies against the
// graph and τ at hand; Store replaces it after Δ2 was computed afresh.
// What to do when Load fails (compute, log) is the caller's policy.
type Cache struct {
	Path string
	// MACKey is the certificate key K_cert (cert_mac.go); nil: an
	// unkeyed installation, nothing to authenticate with.
	MACKey []byte
	// Software is this build's version: a certificate another version
	// computed is stale (its methods or their rounding may differ).
	Software string
}

// StaleCacheError reports a cached certificate computed by another
// version of graphcloak (Software).
type StaleCacheError struct{ Software string }

func (e *StaleCacheError) Error() string {
	return fmt.Sprintf("sensitivity: the cached certificate was computed by %q, not by this version", e.Software)
}

// Load returns the cached Δ2 for g at τ and α. Its errors say why the
// cache cannot be used: nothing cached (wrapping fs.ErrNotExist), an
// unreadable or invalid file, a *CertificateMACError, a *StaleCacheError,
// or a *CertificateMismatchError (the graph or τ changed).
func (c Cache) Load(g *laplacian.Graph, tau, alpha float64) (Result, error) {
	cert, err := LoadCertificate(c.Path)
	if err != nil {
		return Result{}, err
	}
	if err := cert.CheckMAC(c.MACKey); err != nil {
		return Result{}, err
	}
	if cert.Software != c.Software {
		return Result{}, &StaleCacheError{Software: cert.Software}
	}
	return cert.Verify(g, tau, alpha)
}

// Store replaces the cached certificate with s, computed on g at τ,
// sealed under MACKey.
func (c Cache) Store(g *laplacian.Graph, s Result, tau float64) error {
	cert, err := NewCertificate(g, s, tau, c.Software)
	if err == nil {
		err = cert.Seal(c.MACKey)
	}
	if err == nil {
		err = SaveCertificate(c.Path, cert)
	}
	return err
}
