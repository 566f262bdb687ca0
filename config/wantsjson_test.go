package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// -o json is read from the parsed flag first, then from the raw
// arguments, then from the environment.
func TestWantsJSON(t *testing.T) {
	isolate(t)
	parsed := func(args ...string) *pflag.Flag {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.StringP("output", "o", "table", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs.Lookup("output")
	}
	for _, c := range []struct {
		flag *pflag.Flag
		args []string
		env  string
		want bool
	}{
		{parsed("-o", "json"), []string{"--frob", "-o", "table"}, "", true},
		{parsed("-o", "table"), nil, "json", false},
		{parsed(), []string{"--frob", "-o", "JSON"}, "", true},
		{parsed(), []string{"--frob"}, "json", true},
		{parsed(), []string{"--frob", "--output=table"}, "json", false},
		{nil, nil, "", false},
		{nil, []string{"--", "-o", "json"}, "", false},
	} {
		t.Setenv("GRAPHCLOAK_OUTPUT", c.env)
		if got := WantsJSON(c.flag, c.args); got != c.want {
			t.Errorf("%v, env %q: %v, want %v", c.args, c.env, got, c.want)
		}
	}
}

// A misspelt flag gets the flags near it (one to three of them); more, none
// or another error leave the error as it is, wrapped or not.
func TestSuggestFlag(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	for _, n := range []string{"epsilon", "epoch", "graph", "tau", "tag", "tab", "tan"} {
		fs.String(n, "", "")
	}
	unknown := func(name string) error { return errors.New("unknown flag: --" + name) }
	err := SuggestFlag(fs, unknown("epsilom"))
	if !strings.HasSuffix(err.Error(), "; did you mean --epsilon?") || !errors.Is(err, errors.Unwrap(err)) {
		t.Errorf("epsilom: %v", err)
	}
	for _, e := range []error{unknown("zzzzzzzz"), unknown("ta"), errors.New("flag needs an argument: --graph")} {
		if got := SuggestFlag(fs, e); got != e {
			t.Errorf("%v: %v, want it unchanged", e, got)
		}
	}
}
