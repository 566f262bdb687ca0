package privacy

import "github.com/graphcloak/graphcloak/errkind"

// Parameters and operations this package's errors name (errkind.Param):
// a command shows each as its user types it (errkind.Render).
const (
	// ParamLedgerKey is the ledger key (FileLedgerOptions' key).
	ParamLedgerKey errkind.Param = "ledger key"
	// ParamCreateLedger is CreateFileLedger: making a ledger or a scope's
	// budget, or migrating a version 1 ledger.
	ParamCreateLedger errkind.Param = "CreateFileLedger"
	// ParamAnswerShare is a budget's share for private answers
	// (Budget.AnswerEpsilon), fixed when the scope is created.
	ParamAnswerShare errkind.Param = "an answers' share"
	// ParamAnswerDeltaShare is a budget's δ share for private answers
	// under stated sensor noise (Budget.AnswerDelta).
	ParamAnswerDeltaShare errkind.Param = "an answers' δ share"
	// ParamMechanism is the Gaussian mechanism chosen (classic, analytic).
	ParamMechanism errkind.Param = "mechanism"
)

// paramName is a parameter's own name (Error's text).
func paramName(p errkind.Param) string { return string(p) }
