// Package textreport holds the human-readable text forms of the reports
// the graphcloak command prints: tables and short summaries written to a
// terminal. The JSON forms are the report structs themselves (jsondoc).
//
// It renders; it decides nothing. Every function takes a finished report
// and a writer, so it is tested without a database, a graph or a command
// line. Like the library, it names parameters, never the command's flags
// or exit codes: hints that name a flag stay in cmd/graphcloak.
package textreport
