package graphcloak

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestRootIsTheLibraryAPI: the module root holds the pipeline's steps a Go
// user calls (Release, Locate, Estimate and what they take and return),
// nothing else — at most 30 exported top-level names (functions, types,
// constants, variables; methods not counted) in at most 1 000 lines of
// non-test code (issue 59; `go test -run TestRootIsTheLibraryAPI -v .`
// lists them).
func TestRootIsTheLibraryAPI(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	lines := 0
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		lines += fset.Position(f.End()).Line
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d exported names in %d lines: %s", len(names), lines, strings.Join(names, " "))
	for _, step := range []string{"Release", "Locate", "Estimate"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+step+" ") {
			t.Errorf("the root has no %s: the pipeline's steps are its API", step)
		}
	}
	if len(names) > 30 {
		t.Errorf("the root exports %d names, at most 30: what is not a pipeline step or its input and output belongs in a package of its own", len(names))
	}
	if lines > 1000 {
		t.Errorf("the root has %d lines of non-test code, at most 1 000", lines)
	}
}
