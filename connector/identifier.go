package connector

import "strings"

// maxIdentifier is the longest label, type or property name accepted.
const maxIdentifier = 64

// Quote validates name as a Cypher identifier of the given kind ("label",
// "relationship type", "property") and returns it backtick-quoted, ready to
// be placed in query text:
//
//	^[A-Za-z_][A-Za-z0-9_]*$, 1..64 bytes  →  `name`
//
// Labels, relationship types and property keys cannot be query parameters,
// so they are the one place where user input reaches query text. Escaping
// by doubling backticks is not enough on Neo4j 4.2–5.x, whose lexer decodes
// \uXXXX escapes inside quoted names, so a literal `\u0060` closes the
// quote (see Neo4j Cypher-DSL SchemaNames.sanitize). The allow-list above
// excludes backticks, backslashes, quotes, whitespace, control characters
// and non-ASCII letters; anything else is refused with *IdentifierError.
func Quote(kind, name string) (string, error) {
	if err := CheckIdentifier(kind, name); err != nil {
		return "", err
	}
	return "`" + name + "`", nil
}

// CheckIdentifier is graphcloak's one identifier rule for labels,
// relationship types and property names (config applies it too): it
// returns *IdentifierError unless name matches ^[A-Za-z_][A-Za-z0-9_]*$
// and has 1..64 bytes.
func CheckIdentifier(kind, name string) error {
	if name == "" {
		return &IdentifierError{What: kind, Name: name, Reason: "must not be empty"}
	}
	if len(name) > maxIdentifier {
		return &IdentifierError{What: kind, Name: name[:maxIdentifier] + "…", Reason: "longer than 64 bytes"}
	}
	// Named reasons for the dangerous characters make the refusal clear.
	switch {
	case strings.Contains(name, "`"):
		return &IdentifierError{What: kind, Name: name, Reason: "contains a backtick"}
	case strings.Contains(name, `\`):
		return &IdentifierError{What: kind, Name: name, Reason: `contains a backslash (\u0060 would close a quoted name)`}
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		ok := b == '_' || ('A' <= b && b <= 'Z') || ('a' <= b && b <= 'z') || (i > 0 && '0' <= b && b <= '9')
		if !ok {
			if i == 0 && '0' <= b && b <= '9' {
				return &IdentifierError{What: kind, Name: name, Reason: "starts with a digit"}
			}
			return &IdentifierError{What: kind, Name: name,
				Reason: "may contain only ASCII letters, digits and '_' (^[A-Za-z_][A-Za-z0-9_]*$)"}
		}
	}
	return nil
}

// quoteAll quotes every name, or returns the first refusal.
func quoteAll(kind string, names []string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		q, err := Quote(kind, n)
		if err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}
