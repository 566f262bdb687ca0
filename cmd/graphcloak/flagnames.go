package main

import (
	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
	"github.com/graphcloak/graphcloak/internal/sensorfiles"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensitivity"
)

// flagNames is what a user types for each parameter the library's errors
// name (errkind.Param): the one place library names become flags.
var flagNames = map[errkind.Param]string{
	job.ParamScope:             "--scope",
	job.ParamEpoch:             "--epoch",
	job.ParamWait:              "--wait",
	job.ParamLease:             "--lease",
	job.ParamOut:               "--out",
	job.ParamWriteProperty:     "--write-property",
	job.ParamCertificate:       "--sensitivity-cert",
	job.ParamSmooth:            "--smooth",
	job.ParamRefuseAtChance:    "--refuse-at-chance",
	job.ParamPrivateAnswer:     "locate --private-answer",
	job.ParamAnswerCap:         "--answer-cap",
	job.ParamOnMismatch:        "--on-mismatch",
	job.ParamEstimator:         "--estimator",
	job.ParamSigma:             "--sigma",
	job.ParamTau:               "--tau",
	job.ParamReleaseRun:        "--release-run",
	job.ParamReleasedProperty:  "--released-property",
	job.ParamCommunityProperty: "--communities property:…",
	job.ParamMassProperty:      "--mass-property",
	job.ParamCommunityOut:      "--community-write-property",
	job.ParamProbability:       "--probability-property",
	job.ParamRank:              "--rank-property",
	job.ParamSourceMass:        "--source-mass",
	job.ParamNodeKey:           "--node-key-property",
	job.ParamProjection:        "projection flags",

	privacy.ParamLedgerKey:        "--ledger-key",
	privacy.ParamCreateLedger:     "budget --init",
	privacy.ParamAnswerShare:      "budget --init --answer-epsilon",
	privacy.ParamAnswerDeltaShare: "budget --init --answer-delta",
	privacy.ParamMechanism:        "--mechanism",

	sensitivity.ParamMethod: "sensitivity --method",
	sensitivity.ParamSave:   "sensitivity --save",
	sensitivity.ParamMACKey: "--ledger-key",

	graphcloak.ParamHeader: "--header", // graphcloak.ParamTau is job.ParamTau; laplacian.ParamHeader is this one

	// connector.ParamNodeKey and ParamCommunityProperty are job's;
	// ParamCommunities is "--communities" by default.
	connector.ParamValueProperty: "--value-property",

	sensorfiles.ParamOrder:          "--order",
	sensorfiles.ParamCoordinatorKey: "--coordinator-key",
	sensorfiles.ParamSensorKey:      "--key",
	sensorfiles.ParamPolicy:         "--policy",
	sensorfiles.ParamValueFile:      "--value-file",
	sensorfiles.ParamSigmaFloor:     "--sigma-floor",
	sensorfiles.ParamGraphSHA256:    "--graph-sha256",
	inputfiles.ParamNodes:           "--nodes",
}

// flagName is the flag for parameter p: flagNames' entry, else "--p"
// (errkind.CheckPositive("tau", …) names --tau).
func flagName(p errkind.Param) string {
	if f, ok := flagNames[p]; ok {
		return f
	}
	return "--" + string(p)
}

// flagText is err's text naming the flags a user types.
func flagText(err error) string { return errkind.Render(err, flagName) }
