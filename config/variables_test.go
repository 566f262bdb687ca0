package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryVariableReadIsKnown: every GRAPHCLOAK_* name the module's
// non-test Go code spells (what graphcloak reads) is a configuration
// key's variable or one of otherVariables — never warned about as "not a
// graphcloak variable and is ignored" while it is read
// (GRAPHCLOAK_CACHE_MAX was).
func TestEveryVariableReadIsKnown(t *testing.T) {
	name := regexp.MustCompile(`"(GRAPHCLOAK_[A-Z0-9_]+)"`)
	seen := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "bench" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen["GRAPHCLOAK_CACHE_MAX"] == "" {
		t.Fatalf("the scan found no GRAPHCLOAK_CACHE_MAX (saw %v): it reads the wrong tree", seen)
	}
	for v, path := range seen {
		if w := unknownVariables([]string{v + "=1"}); len(w) > 0 {
			t.Errorf("%s (read in %s): %s", v, path, w[0])
		}
	}
}
