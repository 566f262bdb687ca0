package privacy

import (
	"crypto/hmac"
	"crypto/sha256"
)

// subkey derives the key of one use of the ledger key.
func subkey(k *Key, use string) []byte {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte("graphcloak/" + use + "/v1"))
	return m.Sum(nil)
}

// CertificateMACKey returns the key that seals and checks sensitivity
// certificates (sensitivity.Certificate.Seal and CheckMAC) under the
// ledger key k:
//
//	K_cert = HMAC-SHA256(ledger key, "graphcloak/certificate-mac/v1")
//
// — a subkey, so a certificate MAC is never a valid ledger chain link. A
// nil k (an unkeyed installation) gives nil: nothing to authenticate with.
func (k *Key) CertificateMACKey() []byte {
	if k == nil {
		return nil
	}
	return subkey(k, "certificate-mac")
}
