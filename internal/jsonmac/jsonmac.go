// Package jsonmac authenticates stored facts (certificates) as
// hex(HMAC-SHA256(key, JSON(value))): the value's JSON encoding is what is
// signed, so a field added to or edited in the file breaks the MAC.
package jsonmac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Sum returns hex(HMAC-SHA256(key, json.Marshal(v))).
func Sum(key []byte, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// Equal compares two MACs in constant time.
func Equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
