package main

import (
	"testing"
	"time"
)

// checkRuns refuses a negative --last and a picture it cannot draw.
func TestCheckRuns(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     runsOptions
		wantExit int
		wantFlag string
	}{
		{"the newest 20", runsOptions{last: 20}, exitOK, ""},
		{"all, drawn", runsOptions{last: 0, plot: "history.svg"}, exitOK, ""},
		{"negative last", runsOptions{last: -1}, exitBadInput, "--last"},
		{"a picture format it cannot draw", runsOptions{last: 20, plot: "history.bmp"}, exitBadInput, "--plot"},
	} {
		wantRefusal(t, c.name, checkRuns(&c.opts), c.wantExit, c.wantFlag)
	}
}

// checkRunsPrune needs --keep or --older-than, neither negative, and
// keeps every record by count (-1) when --keep is not given.
func TestCheckRunsPrune(t *testing.T) {
	for _, c := range []struct {
		name                  string
		opts                  runsPruneOptions
		keepGiven, olderGiven bool
		wantExit              int
		wantFlag              string
		wantKeep              int
	}{
		{"keep 1000", runsPruneOptions{keep: 1000}, true, false, exitOK, "", 1000},
		{"keep none", runsPruneOptions{keep: 0}, true, false, exitOK, "", 0},
		{"older than 90 days", runsPruneOptions{olderThan: 2160 * time.Hour}, false, true, exitOK, "", -1},
		{"both", runsPruneOptions{keep: 5, olderThan: time.Hour}, true, true, exitOK, "", 5},
		{"neither", runsPruneOptions{}, false, false, exitUsage, "--keep", 0},
		{"negative keep", runsPruneOptions{keep: -1}, true, false, exitBadInput, "--keep", 0},
		{"negative age", runsPruneOptions{olderThan: -time.Hour}, false, true, exitBadInput, "--older-than", 0},
	} {
		keep, err := checkRunsPrune(&c.opts, c.keepGiven, c.olderGiven)
		if wantRefusal(t, c.name, err, c.wantExit, c.wantFlag) && err == nil && keep != c.wantKeep {
			t.Errorf("%s: keep %d, want %d", c.name, keep, c.wantKeep)
		}
	}
}

// audit and audit merge need the graph, and a shard or a merge where to
// save what it makes (an audit's certificate goes to the store without
// --save; auditCache refuses --cache-dir none without it).
func TestAuditCheck(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     auditOptions
		wantExit int
		wantFlag string
	}{
		{"a graph and a file", auditOptions{graph: "karate", save: "answer.json"}, exitOK, ""},
		{"no graph", auditOptions{save: "answer.json"}, exitUsage, "--graph"},
		{"the store's entry", auditOptions{graph: "karate"}, exitOK, ""},
		{"a shard, nowhere to save", auditOptions{graph: "karate", shard: "0/2"}, exitUsage, "--save"},
		{"a merge, nowhere to save", auditOptions{graph: "karate", parts: []string{"p.json"}}, exitUsage, "--save"},
	} {
		wantRefusal(t, c.name, c.opts.check(), c.wantExit, c.wantFlag)
	}
}
