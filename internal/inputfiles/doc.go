// Package inputfiles reads what a job takes from local files, before
// anything is opened or connected: a raw readings CSV (node,value), read
// when the job asks (ReadingsFrom): a release before anything is opened,
// a private answer once its graph is loaded, serve at every slot; an edge
// list with its readings to load into Neo4j; and a node list
// (ReadNodeList). What the files hold is checked as they are read (the
// project's CSV rules, keys of one type, readings naming nodes of the
// edge list); its errors name parameters (errkind.Param), never a
// command's flags. It also checks a path for its use before a command
// runs (CheckPath). The configured keys and a job's spec completed from
// them are internal/jobfiles'; a sensor's report, internal/sensorfiles'.
package inputfiles
