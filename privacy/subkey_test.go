package privacy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"testing"
)

// The certificate MAC key is the documented subkey of the ledger key, so
// certificates sealed before it moved (sensitivity.Certificate.Seal) still
// verify; an unkeyed installation has none.
func TestCertificateMACKey(t *testing.T) {
	var none *Key
	if k := none.CertificateMACKey(); k != nil {
		t.Errorf("nil ledger key: %x, want nil", k)
	}
	key, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte("graphcloak/certificate-mac/v1"))
	if got, want := key.CertificateMACKey(), m.Sum(nil); !bytes.Equal(got, want) {
		t.Errorf("CertificateMACKey = %x, want HMAC-SHA256(key, \"graphcloak/certificate-mac/v1\") = %x", got, want)
	}
	if bytes.Equal(key.CertificateMACKey(), subkey(&key, "ledger-high-water-mark")) {
		t.Error("the certificate MAC key equals the high-water-mark key")
	}
}
