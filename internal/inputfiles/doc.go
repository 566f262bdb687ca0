// Package inputfiles reads what a job takes from local files, before
// anything is opened or connected: a raw readings CSV (node,value), an
// edge list with its readings to load into Neo4j, the configured key
// files (the ledger key, the noise key) and a Δ2 certificate, and with
// them completes and checks a release's or a private answer's spec
// (ReadReleaseInputs, ReadAnswerKeys). What the files hold is checked as
// they are read (the project's CSV rules, keys of one type, readings
// naming nodes of the edge list, a certificate sealed under the ledger
// key); its errors name parameters (errkind.Param), never a command's
// flags. The command, the service and the stores read through it.
package inputfiles
