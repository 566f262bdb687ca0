package inputfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// The first refusal is of the path read first, whatever the order given
// (reads, then kept files, then outputs, then directories); it is bad
// input naming the path as given. Usable paths pass.
func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(file, []byte("a,b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "none", "x")
	ok := []GivenPath{{"--edges e", file, ReadPath}, {"--ledger l", filepath.Join(dir, "l.json"), KeptPath},
		{"--out o", filepath.Join(dir, "o.csv"), WritePath}, {"--out-dir d", filepath.Join(dir, "keys"), DirPath}}
	if err := CheckPaths(ok); err != nil {
		t.Errorf("usable paths refused: %v", err)
	}
	for _, c := range []struct {
		given []GivenPath
		want  string
	}{
		{[]GivenPath{{"--out-dir D", missing, DirPath}, {"--out O", missing, WritePath}, {"--ledger L", dir, KeptPath}, {"--values V", missing, ReadPath}}, "--values V: "},
		{[]GivenPath{{"--out-dir D", missing, DirPath}, {"--out O", missing, WritePath}, {"--ledger L", dir, KeptPath}}, "--ledger L: "},
		{[]GivenPath{{"--out-dir D", missing, DirPath}, {"--out O", missing, WritePath}}, "--out O: "},
		{[]GivenPath{{"--out-dir D", missing, DirPath}, {"--out P", file, WritePath}}, "--out-dir D: "},
		{[]GivenPath{{"--key A", missing, ReadPath}, {"--key B", dir, ReadPath}}, "--key A: "},
	} {
		err := CheckPaths(c.given)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || errkind.Of(err) != errkind.BadInput {
			t.Errorf("%v: %v (%s), want bad input %q…", c.given, err, errkind.Of(err), c.want)
		}
	}
}
