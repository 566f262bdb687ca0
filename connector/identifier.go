package connector

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxIdentifier is the longest label, type or property name accepted.
const maxIdentifier = 64

// Quote validates name as a Neo4j name of the given kind ("label",
// "relationship type", "property") and returns it backtick-quoted, ready to
// be placed in query text. Labels, relationship types and property keys
// cannot be query parameters, so they are the one place where user input
// reaches query text, and they are always quoted.
//
// Every name Neo4j accepts in backticks is accepted (CheckIdentifier),
// including Unicode letters (Raum_ü), digits first (1ADJ), spaces and
// hyphens, except two characters: the backtick, and the backslash —
// escaping by doubling backticks is not enough on Neo4j 4.2–5.x, whose
// lexer decodes \uXXXX escapes inside quoted names, so a literal `\u0060`
// closes the quote (see Neo4j Cypher-DSL SchemaNames.sanitize). Without
// either, nothing inside the quotes can end them; FuzzQuote checks this
// against a model of the lexer.
func Quote(kind, name string) (string, error) {
	if err := CheckIdentifier(kind, name); err != nil {
		return "", err
	}
	return "`" + name + "`", nil
}

// CheckIdentifier is graphcloak's one identifier rule for labels,
// relationship types and property names (config applies it too): 1..64
// bytes of valid UTF-8 without backticks, backslashes, control or format
// characters (line breaks, NUL, zero-width and direction marks, which
// would hide what a name is). Otherwise it returns *IdentifierError.
func CheckIdentifier(kind, name string) error {
	if name == "" {
		return &IdentifierError{What: kind, Name: name, Reason: "must not be empty"}
	}
	if len(name) > maxIdentifier {
		return &IdentifierError{What: kind, Name: truncateUTF8(name, maxIdentifier) + "…", Reason: "longer than 64 bytes"}
	}
	if !utf8.ValidString(name) {
		return &IdentifierError{What: kind, Name: strings.ToValidUTF8(name, "\uFFFD"), Reason: "is not valid UTF-8"}
	}
	// Named reasons for the dangerous characters make the refusal clear.
	switch {
	case name == "*":
		return &IdentifierError{What: kind, Name: name, Reason: "is the projection wildcard (all labels or types), not a name"}
	case strings.Contains(name, "`"):
		return &IdentifierError{What: kind, Name: name, Reason: "contains a backtick"}
	case strings.Contains(name, `\`):
		return &IdentifierError{What: kind, Name: name, Reason: `contains a backslash (\u0060 would close a quoted name)`}
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return &IdentifierError{What: kind, Name: name, Reason: fmt.Sprintf("contains the control or format character %U", r)}
		}
	}
	return nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// quoteAll quotes every name of a user's labels or relationship types
// (quoteUser: graphcloak's own are refused), or returns the first refusal.
func quoteAll(kind string, names []string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		q, err := quoteUser(kind, n)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}
