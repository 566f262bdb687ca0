package main

import "errors"

// Exit codes, documented in README.md ("Exit codes"). This is the only
// place errors are mapped to process exit codes.
const (
	exitOK              = 0
	exitFailure         = 1 // an unexpected internal failure
	exitUsage           = 2 // bad flags or arguments
	exitBadInput        = 3 // invalid input data or parameter values
	exitDBUnreachable   = 4 // Neo4j could not be reached or refused the credentials
	exitBudgetExhausted = 5 // the privacy ledger refused the release
	exitDBError         = 6 // Neo4j reached but the query failed (unknown label, missing property, write failure)
	exitInterrupted     = 130
)

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ue usageError
	var ie inputError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ie):
		return exitBadInput
	}
	return exitFailure
}
