// Package shellquote quotes words for a POSIX shell, so that a command
// printed for a person to paste runs with exactly its words.
package shellquote

import "strings"

// Quote is s as one word for a POSIX shell: itself when it is a plain
// word (letters, digits and / . - _ : ~ @ + =), else in single quotes,
// each single quote inside closed, escaped and reopened. The empty word
// is two single quotes.
func Quote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '~' || r == '@' || r == '+' || r == '=' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
