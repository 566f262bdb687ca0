package main

import (
	"testing"
)

// budget checks its flags before it connects to a Neo4j ledger: a bad
// flag is a usage error even when no server listens.
func TestBudgetChecksBeforeConnecting(t *testing.T) {
	isolateConfig(t)
	base := []string{"budget", "--ledger", "neo4j", "--uri", "bolt://127.0.0.1:1", "--connect-timeout", "1"}
	if _, code, err := runPrivacyCLI(t, append(base, "--answer-epsilon", "4")...); code != exitUsage {
		t.Errorf("--answer-epsilon without --init: exit %d (%v), want %d", code, err, exitUsage)
	}
	if _, code, err := runPrivacyCLI(t, base...); code != exitDBUnreachable {
		t.Errorf("no server: exit %d (%v), want %d", code, err, exitDBUnreachable)
	}
}
