// Package inputfiles reads what a job takes from local files, before
// anything is opened or connected: the configured key files (the ledger
// key, the noise key) and a Δ2 certificate, with which it completes and
// checks a release's or a private answer's spec (ReadReleaseInputs,
// ReadAnswerKeys), and an edge list with its readings to load into Neo4j.
// A raw readings CSV (node,value) is read when the job asks
// (ReadingsFrom): a release before anything is opened, a private answer
// once its graph is loaded, serve at every slot. What the files hold is
// checked as they are read (the project's CSV rules, keys of one type,
// readings naming nodes of the edge list, a certificate sealed under the
// ledger key); its errors name parameters (errkind.Param), never a
// command's flags. The command and the stores read through it. It also
// checks a path for its use before a command runs (CheckPath), opens the
// store of work (WorkStore), and reads a sensor's report from its files
// (SensorReport) and a node list (ReadNodeList).
package inputfiles
