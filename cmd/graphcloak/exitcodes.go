package main

import (
	"context"
	"errors"
	"io/fs"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"

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
	exitChargedEpoch    = 7 // the epoch was charged but its values cannot be published (re-release under a new epoch)
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
	var (
		cfgErr    *config.Error
		budgetErr *privacy.BudgetError
		privArg   *privacy.ArgumentError
		privParam *privacy.ParamError
		keyPerm   *privacy.KeyPermissionError
		specErr   *laplacian.SpecError
		csvErr    *laplacian.CSVError
		edgeErr   *laplacian.EdgeError
		jobErr    *graphcloak.JobError
		valuesErr *graphcloak.ValuesError
		missing   *community.MissingNodesError
		assignErr *community.ParseError
	)
	var (
		expmParam *expm.ParamError
		expmLarge *expm.TooLargeError
		expmTol   *expm.ToleranceError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &budgetErr):
		return exitBudgetExhausted
	case errors.As(err, new(chargedError)), errors.Is(err, privacy.ErrAlreadyCharged), errors.As(err, new(*connector.RunStateError)):
		return exitChargedEpoch
	case errors.As(err, &cfgErr), errors.As(err, &privArg), errors.As(err, &privParam), errors.As(err, &keyPerm),
		errors.Is(err, privacy.ErrBadKeyFile), errors.Is(err, privacy.ErrBudgetMismatch), errors.As(err, new(*privacy.LedgerCorruptError)), errors.Is(err, privacy.ErrNoLedger), errors.Is(err, privacy.ErrNoScope),
		errors.As(err, &specErr), errors.As(err, &csvErr), errors.As(err, &edgeErr), errors.Is(err, laplacian.ErrEmptyGraph),
		errors.Is(err, laplacian.ErrDuplicateKey), errors.Is(err, laplacian.ErrBadWeight), errors.Is(err, laplacian.ErrSelfLoop),
		errors.As(err, &jobErr), errors.As(err, &valuesErr), errors.Is(err, recovery.ErrUnknownEstimator),
		errors.Is(err, recovery.ErrBadProblem), errors.Is(err, recovery.ErrOperatorOnly), errors.Is(err, recovery.ErrZeroMass),
		errors.Is(err, recovery.ErrNegativeMass), errors.As(err, new(*recovery.UnbalancedError)),
		errors.As(err, &missing), errors.As(err, &assignErr), errors.Is(err, fs.ErrNotExist),
		errors.As(err, &expmParam), errors.As(err, &expmLarge), errors.As(err, &expmTol),
		errors.As(err, &cIdent), errors.As(err, &cArg), errors.As(err, new(*connector.BindingError)),
		errors.As(err, new(*connector.RunNotFoundError)):
		return exitBadInput
	case errors.As(err, &cUnreachable), errors.As(err, &cAuth), errors.As(err, new(*connector.TimeoutError)):
		return exitDBUnreachable
	case errors.As(err, &cSchema), errors.As(err, &cData), errors.As(err, &cQuery):
		return exitDBError
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ie):
		return exitBadInput
	}
	return exitFailure
}
