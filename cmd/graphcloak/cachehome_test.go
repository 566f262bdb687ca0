package main

import (
	"os"
	"testing"
)

// TestMain gives the package's tests a user cache directory of their own
// (the installation key, plan's --cache-dir default), so that no test
// reads what a run on this machine, or an earlier test run, kept there. A
// helper process of the integration tests (TestArgvBatch, ARGV_BATCH set)
// keeps the caller's: its runs share the installation key with the
// binary's.
func TestMain(m *testing.M) {
	if os.Getenv("ARGV_BATCH") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "graphcloak-cmd-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
