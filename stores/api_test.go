package stores

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestStoresIsOpenPlusMethods: the package's one exported free function
// is Open; everything else a caller does is a method on what Open
// returns (or on what those methods return), so no command reaches
// Neo4j, the ledger or the release run except through opened stores
// (one driver per process). Reading local files before anything is
// opened is internal/inputfiles'.
func TestStoresIsOpenPlusMethods(t *testing.T) {
	var free []string
	for _, d := range packageFuncs(t) {
		if d.fn.Recv == nil && d.fn.Name.IsExported() {
			free = append(free, d.fn.Name.Name+" ("+d.file+")")
		}
	}
	slices.Sort(free)
	if !slices.Equal(free, []string{"Open (open.go)"}) {
		t.Errorf("exported free functions %v, want Open alone: make it a method on *Stores, or move what opens nothing out of stores", free)
	}
}

// TestOneConnectionPerStores: Open is the only place the stores connect
// (connect): a graph, a load, a detection, the ledger and
// the run records are all read through the connection Open made, so one
// Stores is one driver.
func TestOneConnectionPerStores(t *testing.T) {
	var callers []string
	for _, d := range packageFuncs(t) {
		fn := d.fn
		if fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch c := call.Fun.(type) {
			case *ast.Ident:
				if c.Name == "connect" {
					callers = append(callers, fn.Name.Name+"→"+c.Name)
				}
			case *ast.SelectorExpr:
				if x, ok := c.X.(*ast.Ident); ok && x.Name == "connector" && c.Sel.Name == "Connect" {
					callers = append(callers, fn.Name.Name+"→connector.Connect")
				}
			}
			return true
		})
	}
	slices.Sort(callers)
	if want := []string{"Open→connect", "connect→connector.Connect"}; !slices.Equal(callers, want) {
		t.Errorf("connections made by %v, want %v: only Open connects", callers, want)
	}
}

// fileFunc is a function declaration and the file it is in.
type fileFunc struct {
	file string
	fn   *ast.FuncDecl
}

// packageFuncs returns the function declarations of the package's
// non-test files.
func packageFuncs(t *testing.T) []fileFunc {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []fileFunc
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				out = append(out, fileFunc{name, fn})
			}
		}
	}
	return out
}
