package sensitivity

import (
	"crypto/hmac"
	"fmt"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
)

// Certificates (SaveCertificate, a release's sensitivity cache) are
// stored facts a release trusts instead of computing Δ2: a certificate
// with Δ2 halved would release with half the noise the guarantee needs.
// With a MAC key (the ledger key) a certificate carries
//
//	mac = HMAC-SHA256(K_cert, JSON(certificate without mac)),
//	K_cert = HMAC-SHA256(ledger key, "graphcloak/certificate-mac/v1")
//
// — a subkey (privacy.Key.CertificateMACKey), so a certificate MAC is
// never a valid ledger chain link — and a release with a ledger key
// refuses a certificate whose MAC is missing or wrong. Without a ledger
// key nothing authenticates a certificate: like the unkeyed ledger, it is
// protected only by who can write the file.

// certMAC returns the MAC of c (its mac field left out) under key K_cert.
func certMAC(c Certificate, key []byte) (string, error) {
	c.MAC = ""
	return jsonmac.Sum(key, c)
}

// Seal sets c's MAC under the certificate key K_cert (nil: removes it; an
// unkeyed installation has nothing to authenticate with).
func (c *Certificate) Seal(key []byte) error {
	c.MAC = ""
	if key == nil {
		return nil
	}
	mac, err := certMAC(*c, key)
	c.MAC = mac
	return err
}

// CertificateMACError reports a certificate that a keyed installation
// cannot trust: no MAC, or one that does not verify under the ledger key
// (edited, or sealed under another key).
type CertificateMACError struct{ Missing bool }

func (e *CertificateMACError) Error() string {
	return e.RenderText(func(p errkind.Param) string { return string(p) })
}

// RenderText is its text naming parameters as name does.
func (e *CertificateMACError) RenderText(name func(errkind.Param) string) string {
	if e.Missing {
		return "sensitivity: the sensitivity certificate carries no MAC, and a ledger key is in use: only certificates sealed under the ledger key are trusted (recompute it with " +
			name(ParamSave) + " and " + name(ParamMACKey) + ")"
	}
	return "sensitivity: the sensitivity certificate's MAC does not verify under the ledger key: it was edited or sealed under another key"
}

// Kind: the user supplies a sealed certificate (or none).
func (*CertificateMACError) Kind() errkind.Kind { return errkind.BadInput }

// CheckMAC verifies c's MAC under the certificate key K_cert; with no key
// (nil: an unkeyed installation) there is nothing to verify against and it
// returns nil.
func (c Certificate) CheckMAC(key []byte) error {
	if key == nil {
		return nil
	}
	if c.MAC == "" {
		return &CertificateMACError{Missing: true}
	}
	want, err := certMAC(c, key)
	if err != nil {
		return fmt.Errorf("sensitivity: certificate MAC: %w", err)
	}
	if !hmac.Equal([]byte(want), []byte(c.MAC)) {
		return &CertificateMACError{}
	}
	return nil
}
