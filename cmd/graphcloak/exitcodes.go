package main

import "github.com/graphcloak/graphcloak/errkind"

// Exit codes, documented in docs/usage.md ("Exit codes"; README lists them). This is the only
// place errors are mapped to process exit codes.
const (
	exitOK              = 0
	exitFailure         = 1 // an unexpected internal failure
	exitUsage           = 2 // bad flags or arguments
	exitBadInput        = 3 // invalid input data or parameter values, refused credentials, a label/type/property the database lacks
	exitDBUnreachable   = 4 // Neo4j could not be reached or did not answer in time (retry)
	exitBudgetExhausted = 5 // the privacy ledger refused the release
	exitDBError         = 6 // Neo4j reached but the query failed (data that does not fit the projection, write failure)
	exitChargedEpoch    = 7 // the epoch was charged but its values cannot be published (re-release under a new epoch)
	exitBusy            = 8 // another live run holds the scope (retry after it ends)
	exitInterrupted     = 130
)

// exitCode maps an error's kind (package errkind) to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	switch errkind.Of(err) {
	case errkind.Usage:
		return exitUsage
	case errkind.BadInput:
		return exitBadInput
	case errkind.Unreachable:
		return exitDBUnreachable
	case errkind.Budget:
		return exitBudgetExhausted
	case errkind.Database:
		return exitDBError
	case errkind.Charged:
		return exitChargedEpoch
	case errkind.Busy:
		return exitBusy
	case errkind.Interrupted:
		return exitInterrupted
	}
	return exitFailure
}

// exitCodeAttr is the log attribute of an error's exit code (serve's
// steps log it beside the error).
func exitCodeAttr(err error) []any { return []any{"exitCode", exitCode(err)} }
