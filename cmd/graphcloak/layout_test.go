package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commandFiles names the files that belong to one command. Every other
// file of the package is shared: wiring a job that serve also runs
// (releasespec.go, locatespec.go, openstores.go, …), output, errors, config.
var commandFiles = map[string]string{
	"budget.go": "budget", "calibrate.go": "calibrate", "communities.go": "communities", "config_cmd.go": "config",
	"demo.go": "demo", "experiment.go": "experiment", "experiment_sensitivity.go": "experiment", "keygen.go": "keygen",
	"load.go": "load", "locate.go": "locate", "answerspec.go": "locate", "plan.go": "plan", "projection_cmd.go": "projection",
	"release.go": "release", "runs.go": "runs", "sensitivity.go": "sensitivity", "serve.go": "serve", "serve_page.go": "serve",
	"unmask.go": "unmask", "audit.go": "audit", "sensor_cmd.go": "sensor",
	"epoch.go": "epoch", "collect.go": "collect", "serve_collect.go": "serve", "cache_cmd.go": "cache",
}

// TestCommandsCallNoOtherCommand: a command's file uses no
// function, type, variable or constant declared in another command's
// file — what two commands share lives in a shared file — and the
// bounded commands stay short (release.go ≤ 300 lines, serve.go
// ≤ 150).
func TestCommandsCallNoOtherCommand(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	home := map[string]string{} // top-level name → file
	files := map[string]*ast.File{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f
		for name := range f.Scope.Objects {
			home[name] = p
		}
	}
	for p, f := range files {
		cmd, ok := commandFiles[p]
		if !ok {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || id.Obj != nil { // resolved within the file: its own
				return true
			}
			if h := home[id.Name]; h != "" && h != p && commandFiles[h] != "" && commandFiles[h] != cmd {
				t.Errorf("%s (%s) uses %s of %s (%s): move it to a shared file", p, cmd, id.Name, h, commandFiles[h])
			}
			return true
		})
	}
	for file, most := range map[string]int{"release.go": 300, "serve.go": 150} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > most {
			t.Errorf("%s has %d lines, at most %d: it parses flags, calls job and prints", file, n, most)
		}
	}
}
