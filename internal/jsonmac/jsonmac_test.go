package jsonmac

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// Sum is the HMAC of the JSON encoding, computed here from the standard
// library directly, and differs for another key or another value.
func TestSum(t *testing.T) {
	key := []byte("k")
	got, err := Sum(key, map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(`{"a":1}`))
	if want := hex.EncodeToString(m.Sum(nil)); got != want || !Equal(got, want) {
		t.Fatalf("Sum = %s, want %s", got, want)
	}
	other, _ := Sum([]byte("k2"), map[string]int{"a": 1})
	edited, _ := Sum(key, map[string]int{"a": 2})
	if Equal(got, other) || Equal(got, edited) {
		t.Fatal("the MAC does not depend on the key or the value")
	}
}
