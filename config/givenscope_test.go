package config

import "testing"

// TestGivenScope: a scope from a flag, the environment or the file is
// given; the default one is not.
func TestGivenScope(t *testing.T) {
	for _, c := range []struct {
		source Source
		want   string
	}{{FromDefault, ""}, {FromFile, "building-7"}, {FromEnv, "building-7"}, {FromFlag, "building-7"}} {
		l := &Loaded{Sources: map[string]Source{"privacy.scope": c.source}}
		l.Privacy.Scope = "building-7"
		if got := l.GivenScope(); got != c.want {
			t.Errorf("scope from %s: %q, want %q", c.source, got, c.want)
		}
	}
}
