package main

import (
	"testing"

	"github.com/graphcloak/graphcloak/config"
)

// checkBudget refuses each rule's breach of budget's flags with its exit
// code and the flag its message names, connecting to nothing (the ledger
// here is a Neo4j server nobody listens on), and says which scope the
// report shows and the budget --init creates it with. The answers' share
// over the total is refused by privacy.Budget, which names its parameter.
func TestCheckBudget(t *testing.T) {
	totals := func(c *config.Config) {
		c.Privacy.Ledger, c.Neo4j.URI = "neo4j", "bolt://127.0.0.1:1"
		c.Privacy.Scope, c.Privacy.EpsilonTotal, c.Privacy.DeltaTotal = "building-7", 10, 1e-5
	}
	with := func(edit func(*config.Config)) func(*config.Config) {
		return func(c *config.Config) { totals(c); edit(c) }
	}
	for _, c := range []struct {
		name          string
		opts          budgetOptions
		cfg           func(*config.Config)
		wantExit      int
		wantFlag      string
		scope         string
		eps, answerEp float64 // the budget created; 0: none
	}{
		{"every scope", budgetOptions{}, nil, exitOK, "", "", 0, 0},
		{"the scope created", budgetOptions{init: true}, totals, exitOK, "", "building-7", 10, 0},
		{"the answers' share", budgetOptions{init: true, answerEpsilon: 4}, totals, exitOK, "", "building-7", 10, 4},

		{"a bad scope", budgetOptions{}, with(func(c *config.Config) { c.Privacy.Scope = "a b\n" }), exitBadInput, "--scope", "", 0, 0},
		{"a share without --init", budgetOptions{answerEpsilon: 4}, totals, exitUsage, "--answer-epsilon", "", 0, 0},
		{"no totals", budgetOptions{init: true}, with(func(c *config.Config) { c.Privacy.EpsilonTotal = 0 }), exitUsage, "--epsilon-total", "", 0, 0},
		{"a share over the total", budgetOptions{init: true, answerEpsilon: 20}, totals, exitBadInput, "answer epsilon", "", 0, 0},
	} {
		opts := c.opts
		opts.g = testGlobals(t, c.cfg)
		s, err := checkBudget(&opts)
		if !wantRefusal(t, c.name, err, c.wantExit, c.wantFlag) || err != nil {
			continue
		}
		created := s.create != nil
		if s.scope != c.scope || created != (c.eps != 0) ||
			(created && (s.create.Epsilon != c.eps || s.create.Delta != 1e-5 || s.create.AnswerEpsilon != c.answerEp)) {
			t.Errorf("%s: spec %+v (budget %+v)", c.name, s, s.create)
		}
	}
}

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
