package stores

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// budgetFlag names a parameter as budget's user types it: the default
// "--" + name, and privacy's creation as "budget --init".
func budgetFlag(p errkind.Param) string {
	if p == privacy.ParamCreateLedger {
		return "budget --init"
	}
	return flagOf(p)
}

// BudgetRequest.Check refuses each rule's breach with its kind and the
// parameter its message names, opening nothing, and says which scope the
// report shows (the given one, "" for a default scope) and the budget
// Init creates it with. The answers' share over the total is refused by
// privacy.Budget, which names its parameter.
func TestBudgetRequestCheck(t *testing.T) {
	totals := func(c *config.Loaded) {
		c.Privacy.Ledger, c.Neo4j.URI = "neo4j", "bolt://127.0.0.1:1"
		c.Privacy.Scope, c.Privacy.EpsilonTotal, c.Privacy.DeltaTotal = "building-7", 10, 1e-5
		c.Sources = map[string]config.Source{"privacy.scope": config.FromDefault}
	}
	with := func(edit func(*config.Loaded)) func(*config.Loaded) {
		return func(c *config.Loaded) { totals(c); edit(c) }
	}
	for _, c := range []struct {
		name          string
		req           BudgetRequest
		cfg           func(*config.Loaded)
		kind          errkind.Kind
		text          string
		scope         string
		eps, answerEp float64 // the budget created; 0: none
	}{
		{"every scope", BudgetRequest{}, totals, errkind.Internal, "", "", 0, 0},
		{"the scope given", BudgetRequest{}, with(func(c *config.Loaded) { c.Sources["privacy.scope"] = config.FromFlag }), errkind.Internal, "", "building-7", 0, 0},
		{"the scope created", BudgetRequest{Init: true}, totals, errkind.Internal, "", "building-7", 10, 0},
		{"the answers' share", BudgetRequest{Init: true, AnswerEpsilon: 4}, totals, errkind.Internal, "", "building-7", 10, 4},

		{"a bad scope", BudgetRequest{}, with(func(c *config.Loaded) { c.Privacy.Scope = "a b\n" }), errkind.BadInput, "--scope: ", "", 0, 0},
		{"a share without --init", BudgetRequest{AnswerEpsilon: 4}, totals, errkind.Usage, "--answer-epsilon is fixed when the scope is created: give it with --init", "", 0, 0},
		{"a δ share without --init", BudgetRequest{AnswerDelta: 1e-7}, totals, errkind.Usage, "--answer-delta is fixed when the scope is created: give it with --init", "", 0, 0},
		{"no totals", BudgetRequest{Init: true}, with(func(c *config.Loaded) { c.Privacy.EpsilonTotal = 0 }), errkind.Usage,
			"budget --init needs the scope's lifetime budget: give --epsilon-total and --delta-total", "", 0, 0},
		{"a share over the total", BudgetRequest{Init: true, AnswerEpsilon: 20}, totals, errkind.BadInput, "answer epsilon", "", 0, 0},
	} {
		cfg := &config.Loaded{}
		c.cfg(cfg)
		s, err := c.req.Check(cfg)
		if c.text != "" {
			if errkind.Of(err) != c.kind || !strings.Contains(errkind.Render(err, budgetFlag), c.text) {
				t.Errorf("%s: %v (kind %v), want %v naming %q", c.name, err, errkind.Of(err), c.kind, c.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		created := s.Create != nil
		if s.Scope != c.scope || created != (c.eps != 0) ||
			(created && (s.Create.Epsilon != c.eps || s.Create.Delta != 1e-5 || s.Create.AnswerEpsilon != c.answerEp)) {
			t.Errorf("%s: spec %+v (budget %+v)", c.name, s, s.Create)
		}
	}
}
