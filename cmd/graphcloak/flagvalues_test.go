package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// One convention for every flag kind: every
// duration flag takes plain seconds and a unit alike (--connect-timeout
// 15s was refused, --time-budget 30 wanted a unit); --random-seed has one
// type and one default everywhere (int 42 here, uint 1 there).
func TestFlagConventions(t *testing.T) {
	isolateConfig(t)
	root := newRootCmd(io.Discard, io.Discard)
	seedType, seedDefault := "", ""
	walk(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "duration" || strings.HasSuffix(f.Name, "timeout") || f.Name == "time-budget" {
				for _, v := range []string{"30", "30s", "0.5", "2m"} {
					if err := f.Value.Set(v); err != nil {
						t.Errorf("%s --%s %s: %v", c.CommandPath(), f.Name, v, err)
					}
				}
			}
			if f.Name == "random-seed" {
				if seedType == "" {
					seedType, seedDefault = f.Value.Type(), f.DefValue
				}
				if f.Value.Type() != seedType || f.DefValue != seedDefault {
					t.Errorf("%s --random-seed is %s default %s; elsewhere %s default %s", c.CommandPath(), f.Value.Type(), f.DefValue, seedType, seedDefault)
				}
			}
		})
	})
	neo4j := func(args ...string) (connect, transaction float64) {
		out, stderr, code := runCLI(append([]string{"config", "show", "-o", "json"}, args...)...)
		var doc struct {
			Config struct {
				Neo4j struct{ ConnectTimeout, TransactionTimeout float64 }
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
			t.Fatalf("config show %v: exit %d %v %s", args, code, err, stderr)
		}
		return doc.Config.Neo4j.ConnectTimeout, doc.Config.Neo4j.TransactionTimeout
	}
	for _, arg := range []string{"15s", "15", "0.25m"} {
		if c, _ := neo4j("--connect-timeout", arg); c != 15 {
			t.Errorf("--connect-timeout %s gave %v s, want 15", arg, c)
		}
	}
	t.Setenv("GRAPHCLOAK_NEO4J_TRANSACTIONTIMEOUT", "2m")
	if _, tx := neo4j(); tx != 120 {
		t.Errorf("GRAPHCLOAK_NEO4J_TRANSACTIONTIMEOUT=2m gave %v s, want 120", tx)
	}
	if _, stderr, code := runCLI("sensitivity", "--graph", "karate", "--time-budget", "30"); code != 0 {
		t.Errorf("--time-budget 30: exit %d: %s", code, stderr)
	}
	if _, _, code := runCLI("plan", "--graph", "karate", "--random-seed", "-1"); code == 0 {
		t.Error("--random-seed -1 accepted")
	}
}
