package config

import (
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/privacy"
)

// Config validation reads privacy's mechanism table: every row that a
// release can draw (a sampler) is accepted by name at an ε its proof
// covers and at its ε bound too (the bound is a release's, checked with
// the release's spec by the row's CheckEpsilon, not a private answer's);
// a row without a sampler is refused
// (its σ is for continuous noise); a name not in the table is refused.
func TestValidateReadsTheMechanismTable(t *testing.T) {
	refused := func(c Config) bool {
		var ce *Error
		err := c.Validate()
		return errors.As(err, &ce) && ce.Key == "privacy.mechanism"
	}
	rows := privacy.Mechanisms()
	if len(rows) == 0 {
		t.Fatal("empty mechanism table")
	}
	for _, m := range rows {
		c := valid()
		c.Privacy.Mechanism, c.Privacy.Epsilon = m.Name, 0.5
		if got, want := refused(c), m.Sampler == 0; got != want {
			t.Errorf("%s at ε = 0.5: refused %v, want %v (sampler %d)", m.Name, got, want, m.Sampler)
		}
		if m.Sampler != 0 && m.MaxEpsilon > 0 {
			c.Privacy.Epsilon = m.MaxEpsilon
			if refused(c) {
				t.Errorf("%s at ε = %v (its bound) refused by config, for every command", m.Name, m.MaxEpsilon)
			}
			if m.CheckEpsilon(m.MaxEpsilon) == nil || m.CheckEpsilon(m.MaxEpsilon/2) != nil {
				t.Errorf("%s: a release's bound ε < %v not checked by its row", m.Name, m.MaxEpsilon)
			}
		}
	}
	c := valid()
	c.Privacy.Mechanism = "laplace"
	if !refused(c) {
		t.Error("a mechanism not in the table accepted")
	}
}
