// Package inputfiles reads the files a command names as a job's input,
// before anything is opened or connected: a raw readings CSV (node,value)
// and an edge list with its readings to load into Neo4j. What the files
// hold is checked as they are read (the project's CSV rules, keys of one
// type, readings naming nodes of the edge list); its errors name
// parameters (errkind.Param), never a command's flags.
package inputfiles
