package main

import (
	"errors"

	"github.com/graphcloak/graphcloak/connector"
)

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
	var (
		cUnreachable *connector.UnreachableError
		cAuth        *connector.AuthError
		cIdent       *connector.IdentifierError
		cArg         *connector.ArgumentError
		cSchema      *connector.SchemaError
		cData        *connector.DataError
		cQuery       *connector.QueryError
	)
	switch {
	case errors.As(err, &cUnreachable), errors.As(err, &cAuth):
		return exitDBUnreachable
	case errors.As(err, &cIdent), errors.As(err, &cArg):
		return exitBadInput
	case errors.As(err, &cSchema), errors.As(err, &cData), errors.As(err, &cQuery):
		return exitDBError
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ie):
		return exitBadInput
	}
	return exitFailure
}
