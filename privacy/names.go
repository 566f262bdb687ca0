package privacy

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameBytes is the longest scope or epoch accepted.
const MaxNameBytes = 256

// CheckName validates a scope or epoch name (param says which): 1 to
// MaxNameBytes bytes of valid UTF-8 in Unicode normal form NFC, without
// control or format characters. Names are compared byte for byte in
// ledgers and run records, so a name that renders the same as another
// must also be the same bytes (hence NFC), and nothing invisible may hide
// in it. It returns *ArgumentError naming the problem.
func CheckName(param, s string) error {
	bad := func(reason string) error {
		v := s
		if len(v) > 64 {
			v = v[:64]
		}
		v = strconv.QuoteToASCII(v) // control characters visible
		if len(s) > 64 {
			v += "…"
		}
		return &ArgumentError{Func: "CheckName", Param: param, Value: v, Reason: reason}
	}
	switch {
	case s == "":
		return &ArgumentError{Func: "CheckName", Param: param, Reason: "must not be empty"}
	case len(s) > MaxNameBytes:
		return bad("is longer than 256 bytes")
	case !utf8.ValidString(s):
		return bad("is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return bad("contains a control or invisible formatting character")
		}
	}
	if !norm.NFC.IsNormalString(s) {
		return bad("is not in Unicode normal form NFC (normalise it first)")
	}
	return nil
}
