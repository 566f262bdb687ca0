package errkind

import "regexp"

// packagePrefix matches the "privacy: Calibrate: " style prefixes that the
// module's errors carry for Go callers.
var packagePrefix = regexp.MustCompile(`(^|: )(?:(?:graphcloak|privacy|config|laplacian|connector|community|recovery|expm|datasets|experiment): )+(?:[A-Z][A-Za-z]*: )?`)

// Sentence is err as a sentence for people: rendered with name for the
// parameters it names (Render), without the package and function
// prefixes the module's errors carry for Go callers.
func Sentence(err error, name func(Param) string) string {
	msg := Render(err, name)
	for { // matches share their ": " separators, so repeat until stable
		next := packagePrefix.ReplaceAllString(msg, "$1")
		if next == msg {
			return msg
		}
		msg = next
	}
}

// Document is the JSON form of an error for scripts, beside the sentence
// a person reads: its kind and the exit code the command maps it to.
type Document struct {
	SchemaVersion int    `json:"schemaVersion"`
	Error         Detail `json:"error"`
}

// Detail is a Document's error.
type Detail struct {
	Message  string `json:"message"`
	Kind     string `json:"kind"` // usage, bad-input, unreachable, budget, database, charged, interrupted, busy, internal
	ExitCode int    `json:"exitCode"`
}
