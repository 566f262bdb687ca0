package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
)

// TestFlagNames: a library error names parameters; the command's message
// names the flags a user types, through any wrapping, and -o json's
// message is the same sentence.
func TestFlagNames(t *testing.T) {
	if graphcloak.ParamTau != job.ParamTau {
		t.Fatalf("graphcloak.ParamTau %q and job.ParamTau %q differ: flagNames lists only job's", graphcloak.ParamTau, job.ParamTau)
	}
	err := fmt.Errorf("release: %w", &job.ChargedError{Epoch: "e1", Err: errors.New("the values were not stored")})
	if lib := err.Error(); strings.Contains(lib, "--") || !strings.Contains(lib, "new epoch") {
		t.Errorf("library text %q names a flag or not the parameter", lib)
	}
	if msg := errorMessage(err); !strings.Contains(msg, "release under a new --epoch") {
		t.Errorf("errorMessage = %q, want it to name --epoch", msg)
	}
	for p, f := range flagNames {
		if f == "" || f == string(p) {
			t.Errorf("flagNames[%q] = %q: not a name a user types", p, f)
		}
	}
}

// One vocabulary: the line's diffusion time is --tau like
// everywhere else (--T a hidden old spelling), the line's source positions
// are --source-positions (--sources is a count elsewhere), the seed is
// --random-seed (GDS spelling; --seed hidden).
func TestOneVocabulary(t *testing.T) {
	isolateConfig(t)
	line := func(args ...string) string {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"sensitivity", "--line", "--n", "40", "--m", "30", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		return out
	}
	if a, b := untimed(t, line("--tau", "0.02")), untimed(t, line("--T", "0.02")); a != b {
		t.Errorf("--tau and --T differ:\n%s\n%s", a, b)
	}
	if _, code, _ := runPrivacyCLI(t, "sensitivity", "--line", "--n", "40", "--m", "30", "--tau", "0.02", "--T", "0.03"); code != exitUsage {
		t.Errorf("--tau with --T: exit %d, want 2", code)
	}
	run := func(args ...string) string {
		t.Helper()
		out, code, err := runPrivacyCLI(t, append([]string{"experiment", "line", "--trials", "2", "--estimator", "bpdn", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %v", args, code, err)
		}
		return out
	}
	if a, b := untimed(t, run("--tau", "0.05", "--source-positions", "0.3", "--random-seed", "3")), untimed(t, run("--T", "0.05", "--sources", "0.3", "--seed", "3")); a != b {
		t.Errorf("new and old spellings differ:\n%s\n%s", a, b)
	}
	help, _, _ := runPrivacyCLI(t, "experiment", "line", "--help")
	for _, old := range []string{"--T ", "--sources ", "--seed "} {
		if strings.Contains(help, old) {
			t.Errorf("experiment line --help shows the old spelling %s", old)
		}
	}
}

// untimed is a JSON document without its timing fields, for comparisons.
func untimed(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.HasSuffix(k, "Millis") || k == "seconds" {
			delete(m, k)
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// TestLibraryErrorsNameFlags: errors of laplacian and connector that name
// parameters, shown as the command shows every error, name the flags a
// user types, in the words they had when the library wrote the flags
// itself.
func TestLibraryErrorsNameFlags(t *testing.T) {
	_, csvErr := laplacian.ReadCSV(strings.NewReader("x,y\n1,2\n2,3\n"), laplacian.Options{})
	if !errors.Is(csvErr, laplacian.ErrCSVHeader) {
		t.Fatalf("a header of unknown names: %v, want ErrCSVHeader", csvErr)
	}
	conflict := func(p connector.Projection, name string) error {
		return connector.CheckOutputs(connector.ReadProperties(p, nil), map[string]string{"--write-property": name}, nil)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{csvErr, "(use source,target[,weight], or --header yes to skip it, --header no to read it as an edge)"},
		{&connector.GDSMissingError{Database: "neo4j"}, `Neo4j Graph Data Science is not installed on database "neo4j" (no gds.graph.project procedure): install the GDS plugin, or detect communities with graphcloak (--communities leiden)`},
		{conflict(connector.Projection{NodeKeyProperty: "k"}, "k"), `--write-property "k" is the node key property (--node-key-property): writing it would overwrite them`},
		{conflict(connector.Projection{ValueProperty: "v"}, "v"), `--write-property "v" is the raw readings (--value-property): writing it`},
		{conflict(connector.Projection{CommunityProperty: "c"}, "c"), `--write-property "c" is the communities read (--communities property:…): writing it`},
	} {
		if c.err == nil {
			t.Fatalf("no error where %q was expected", c.want)
		}
		if got := flagText(c.err); !strings.Contains(got, c.want) {
			t.Errorf("shown as %q\nwant it to contain %q", got, c.want)
		}
		// The caller's own output key (here the flag cmd passes) aside.
		if own := strings.ReplaceAll(c.err.Error(), "--write-property", ""); strings.Contains(own, "--") {
			t.Errorf("the library's own text names a flag: %q", own)
		}
	}
}
