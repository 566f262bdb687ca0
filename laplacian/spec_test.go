package laplacian

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in        string
		want      Spec
		canonical string
	}{
		{"sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7", Spec{Kind: "sbm", Sizes: []int{250, 250}, PIn: 0.05, POut: 0.001, Seed: 7}, "sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7"},
		{"sbm:sizes=100000,pin=0.0001", Spec{Kind: "sbm", Sizes: []int{100000}, PIn: 0.0001, Seed: 1}, "sbm:sizes=100000,pin=0.0001,pout=0,seed=1"},
		{" SBM : seed=3 , pout=1e-3, sizes = 10X20x30 ,pin=1 ", Spec{Kind: "sbm", Sizes: []int{10, 20, 30}, PIn: 1, POut: 0.001, Seed: 3}, "sbm:sizes=10x20x30,pin=1,pout=0.001,seed=3"},
		{"grid:rows=20,cols=20", Spec{Kind: "grid", Rows: 20, Cols: 20}, "grid:rows=20,cols=20"},
		{"grid:cols=3,rows=1", Spec{Kind: "grid", Rows: 1, Cols: 3}, "grid:rows=1,cols=3"},
		{"path:n=100", Spec{Kind: "path", N: 100}, "path:n=100"},
		{"cycle:n=3", Spec{Kind: "cycle", N: 3}, "cycle:n=3"},
		{"complete:n=50", Spec{Kind: "complete", N: 50}, "complete:n=50"},
		{"star:N=50", Spec{Kind: "star", N: 50}, "star:n=50"},
		{"pa:n=1000,m=3", Spec{Kind: "pa", N: 1000, M: 3, Seed: 1}, "pa:n=1000,m=3,seed=1"},
		{"rgg:seed=9,radius=0.05,n=400", Spec{Kind: "rgg", N: 400, Radius: 0.05, Seed: 9}, "rgg:n=400,radius=0.05,seed=9"},
		{"karate", Spec{Kind: "karate"}, "karate"},
		{"Karate:", Spec{Kind: "karate"}, "karate"},
		{"file:/tmp/a,b:c=d.csv", Spec{Kind: "file", Path: "/tmp/a,b:c=d.csv"}, "file:/tmp/a,b:c=d.csv"},
		{"file: edges.csv ", Spec{Kind: "file", Path: "edges.csv"}, "file:edges.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSpec(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if s := got.String(); s != tc.canonical {
				t.Errorf("String() = %q, want %q", s, tc.canonical)
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		in    string
		param string
		want  error
	}{
		{"", "", ErrUnknownKind},
		{"neo4j:label=Person", "", ErrUnknownKind},
		{"ring:n=5", "", ErrUnknownKind},
		{"path", "n", ErrMissingParam},
		{"path:", "n", ErrMissingParam},
		{"path:m=5", "m", ErrUnknownParam},
		{"path:n=5,n=6", "n", ErrBadValue},
		{"path:n=5,", "", ErrBadValue},
		{"path:n", "n", ErrBadValue},
		{"path:n=-4", "n", ErrBadValue},
		{"path:n=1", "n", ErrBadValue},
		{"path:n=abc", "n", ErrBadValue},
		{"path:n=1.5", "n", ErrBadValue},
		{"cycle:n=2", "n", ErrBadValue},
		{"complete:n=1", "n", ErrBadValue},
		{"complete:n=100000", "n", ErrBadValue},
		{"star:n=0", "n", ErrBadValue},
		{"grid:rows=20", "cols", ErrMissingParam},
		{"grid:rows=0,cols=5", "rows", ErrBadValue},
		{"grid:rows=1,cols=1", "rows×cols", ErrBadValue},
		{"karate:n=3", "n", ErrUnknownParam},
		{"pa:n=10", "m", ErrMissingParam},
		{"pa:n=3,m=3", "n", ErrBadValue},
		{"pa:n=10,m=0", "m", ErrBadValue},
		{"rgg:n=10", "radius", ErrMissingParam},
		{"rgg:n=10,radius=-1", "radius", ErrBadValue},
		{"rgg:n=10,radius=2", "radius", ErrBadValue},
		{"rgg:n=100000000,radius=1", "radius", ErrBadValue},
		{"file:", "path", ErrMissingParam},
		{"file:   ", "path", ErrMissingParam},
		{"sbm:pin=0.1", "sizes", ErrMissingParam},
		{"sbm:sizes=250x250", "pin", ErrMissingParam},
		{"sbm:sizes=250x250,pin=0.1", "pout", ErrMissingParam},
		{"sbm:sizes=250x0,pin=0.1,pout=0.1", "sizes", ErrBadValue},
		{"sbm:sizes=250xx250,pin=0.1,pout=0.1", "sizes", ErrBadValue},
		{"sbm:sizes=x250,pin=0.1,pout=0.1", "sizes", ErrBadValue},
		{"sbm:sizes=-5,pin=0.1", "sizes", ErrBadValue},
		{"sbm:sizes=,pin=0.1", "sizes", ErrBadValue},
		{"sbm:sizes=10,pin=NaN", "pin", ErrBadValue},
		{"sbm:sizes=10,pin=1.5", "pin", ErrBadValue},
		{"sbm:sizes=10,pin=-0.1", "pin", ErrBadValue},
		{"sbm:sizes=10,pin=Inf", "pin", ErrBadValue},
		{"sbm:sizes=10x10,pin=0.1,pout=2", "pout", ErrBadValue},
		{"sbm:sizes=10,pin=0.1,seed=-1", "seed", ErrBadValue},
		{"sbm:sizes=10,pin=0.1,seed=1.5", "seed", ErrBadValue},
		{"sbm:sizes=10000000,pin=0.5", "sizes", ErrBadValue},
		{"sbm:sizes=10,pin=0.1,colour=red", "colour", ErrUnknownParam},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseSpec(tc.in)
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SpecError", err)
			}
			if se.Spec != tc.in || se.Param != tc.param {
				t.Errorf("SpecError{Spec: %q, Param: %q}, want %q, %q", se.Spec, se.Param, tc.in, tc.param)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("%v does not wrap %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "laplacian: graph spec") {
				t.Errorf("error string %q", err)
			}
		})
	}
}

func TestBuildAndGenerate(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "g.csv")
	os.WriteFile(csvPath, []byte("a,b\nb,c\n"), 0o600)
	tests := []struct {
		spec    string
		n, m    int
		hasPart bool
	}{
		{"sbm:sizes=30x20,pin=1,pout=0", 50, 435 + 190, true},
		{"grid:rows=4,cols=5", 20, 2*20 - 4 - 5, false},
		{"path:n=7", 7, 6, false},
		{"cycle:n=7", 7, 7, false},
		{"complete:n=7", 7, 21, false},
		{"star:n=7", 7, 6, false},
		{"pa:n=50,m=2", 50, 3 + 47*2, false},
		{"rgg:n=30,radius=1.4142", 30, 30 * 29 / 2, false},
		{"karate", 34, 78, true},
		{"file:" + csvPath, 3, 2, false},
	}
	for _, tc := range tests {
		g, part, err := Generate(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if g.N() != tc.n || g.NumEdges() != tc.m || (part != nil) != tc.hasPart || (part != nil && len(part) != g.N()) {
			t.Errorf("%s: n=%d m=%d part=%v", tc.spec, g.N(), g.NumEdges(), part != nil)
		}
	}
	if _, _, err := Generate("file:" + filepath.Join(dir, "nope.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A hand-built invalid Spec is refused by Build.
	var se *SpecError
	if _, _, err := (Spec{Kind: "cycle", N: 2}).Build(); !errors.As(err, &se) || se.Param != "n" {
		t.Errorf("Build(cycle n=2): %v", err)
	}
	if _, _, err := (Spec{Kind: "hypercube"}).Build(); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("Build(unknown): %v", err)
	}
	// The default seed is 1.
	a, _, _ := Generate("sbm:sizes=40x40,pin=0.2,pout=0.05")
	b, _, _ := SBM([]int{40, 40}, 0.2, 0.05, 1)
	if a.NumEdges() != b.NumEdges() || a.EdgeWeight(0, 1) != b.EdgeWeight(0, 1) {
		t.Error("default seed is not 1")
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7",
		"sbm:sizes=100000,pin=0.0001",
		"grid:rows=20,cols=20",
		"path:n=100", "cycle:n=100", "complete:n=50", "star:n=50",
		"karate", "file:/tmp/x.csv", "SBM : sizes = 1x2 , pin=1e-3, pout=0x1p-4",
		"sbm:sizes=250x0", "path:n=5,n=6", "file:", "grid:rows=1,cols=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sp, err := ParseSpec(in)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SpecError", err)
			}
			return
		}
		s := sp.String()
		back, err := ParseSpec(s)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", s, in, err)
		}
		if !reflect.DeepEqual(back, sp) {
			t.Fatalf("round trip %q → %+v → %q → %+v", in, sp, s, back)
		}
		if back.String() != s {
			t.Fatalf("String not canonical: %q vs %q", s, back.String())
		}
	})
}
