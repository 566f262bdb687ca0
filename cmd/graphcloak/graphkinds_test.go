package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/stores"
)

// graphKindSpellings are how a string spells one of --graph's kinds:
// "--graph KIND" for every kind, and the start of a spec of every kind
// with parameters ("sbm:sizes=", "gt:", "file:PATH"), from the table.
func graphKindSpellings() []string {
	var out []string
	for _, k := range stores.GraphKinds {
		out = append(out, "--graph "+k.Name)
		switch {
		case k.Path:
			out = append(out, k.Syntax)
		case k.Syntax != k.Name:
			out = append(out, k.Complete)
		}
	}
	return append(out, "a generator such as", "a generator (")
}

// The graph kinds are spelled in one file of the command, graphkinds.go:
// no other non-test file declares a --graph flag or has a string that
// spells a kind (a flag's help, a message, a completion list, a prefix
// check, a default). Help prose (Short, Long, Example, and the commands'
// help texts in raw strings) may show commands; a communities spec's
// file: is the communities' own.
func TestGraphKindsSpelledOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	spellings := graphKindSpellings()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "graphkinds.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "Long" || k.Name == "Example" || k.Name == "Short") {
					return false // help prose
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "String") {
					for _, a := range n.Args {
						if lit, ok := a.(*ast.BasicLit); ok && lit.Value == `"graph"` {
							t.Errorf("%s: declares --graph itself: use graphFlag", fset.Position(n.Pos()))
						}
					}
				}
			case *ast.BasicLit:
				s, err := strconv.Unquote(n.Value)
				if n.Kind != token.STRING || err != nil || strings.HasPrefix(n.Value, "`") || strings.Contains(s, "communit") {
					return true
				}
				for _, sp := range spellings {
					if strings.Contains(s, sp) {
						t.Errorf("%s: %q spells the graph kind %q: take it from graphkinds.go", fset.Position(n.Pos()), s, sp)
					}
				}
			}
			return true
		})
	}
}

// Every command's --graph takes its kinds from the table: completion
// offers exactly the table's kinds of the flag's use, each of them is
// named in its help (the database's alone, or every generator), and a
// kind that names a file is path-checked: a missing file is refused
// before the command runs (exit 3), naming the flag and the spec (serve
// and unmask, database only, skip the check: notPathFlags).
func TestGraphFlagReadsTheKindsTable(t *testing.T) {
	isolateConfig(t)
	root := newRootCmd(io.Discard, io.Discard)
	n := 0
	walkCommands(root, func(c *cobra.Command) {
		f := c.Flags().Lookup("graph")
		if f == nil {
			return
		}
		n++
		use := graphUseOf(f)
		args := append([]string{"__complete"}, strings.Fields(strings.TrimPrefix(c.CommandPath(), "graphcloak "))...)
		got, _, _ := runCLI(append(args, "--graph", "")...)
		var values []string
		for _, line := range strings.Split(got, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion") {
				values = append(values, line)
			}
		}
		var want []string
		for _, k := range stores.GraphKinds {
			if use == graphAny || (use == graphDatabase && k.Database) || (use == graphGenerated && k.Generator) {
				want = append(want, k.Complete)
				token := k.Syntax
				if k.Generator && k.Syntax != k.Name {
					token = k.Name + ":…"
				}
				if !strings.Contains(f.Usage, token) {
					t.Errorf("%s --graph: help %q does not name %s", c.CommandPath(), f.Usage, k.Name)
				}
			}
		}
		if !slices.Equal(values, want) {
			t.Errorf("%s --graph completes %q, want %q (use %s)", c.CommandPath(), values, want, use)
		}
		for _, k := range stores.GraphKinds {
			if !k.Path {
				continue
			}
			missing := filepath.Join(t.TempDir(), "nothing", "edges.csv")
			spec := k.Name + ":" + missing
			if p, ok := graphPath(spec); !ok || p != missing {
				t.Errorf("%s: graphPath(%q) = %q, %v", c.CommandPath(), spec, p, ok)
			}
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			var v string
			graphFlag(fs, &v, "", use, "graph")
			if err := fs.Set("graph", spec); err != nil {
				t.Fatal(err)
			}
			cmd := &cobra.Command{Use: "x"}
			cmd.Flags().AddFlagSet(fs)
			err := checkPaths(cmd, nil)
			if err == nil || exitCode(err) != exitBadInput || !strings.Contains(err.Error(), "--graph "+spec) {
				t.Errorf("%s: a missing %s passes the path check: %v", c.CommandPath(), spec, err)
			}
		}
	})
	if n < 10 {
		t.Errorf("%d commands have --graph", n)
	}
}

// An unknown --graph kind is refused naming every kind of the table
// (stores.GraphKinds), exit 3. Before, laplacian's own list answered it,
// without neo4j or gt.
func TestUnknownGraphKindNamesTheTable(t *testing.T) {
	isolateConfig(t)
	for _, spec := range []string{"foo:bar", "ring:n=5"} {
		_, stderr, code := runCLI("communities", "--graph", spec)
		if code != 3 {
			t.Errorf("--graph %s: exit %d, want 3 (%s)", spec, code, stderr)
		}
		for _, k := range stores.GraphKinds {
			if !strings.Contains(stderr, k.Name) {
				t.Errorf("--graph %s: refusal does not name the kind %s: %s", spec, k.Name, stderr)
			}
		}
	}
}
