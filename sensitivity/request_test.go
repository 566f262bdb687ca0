package sensitivity

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// asFlag names a parameter as a command's flag does ("--p").
func asFlag(p errkind.Param) string { return "--" + string(p) }

// TestRequestCheckCombination: a dry run with a certificate, a malformed
// shard, a shard with a dry run and a shard without a certificate are
// usage errors naming their parameters; a saved shard and a plain run pass.
func TestRequestCheckCombination(t *testing.T) {
	for _, r := range []Request{{}, {Save: "c.json"}, {DryRun: true}, {Shard: "1/4", Save: "p.json"}} {
		if err := r.CheckCombination(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{DryRun: true, Save: "c.json"}, "--dry-run computes no Δ2, so there is nothing to --save"},
		{Request{Shard: "4/4", Save: "p.json"}, "--shard: "},
		{Request{Shard: "x", Save: "p.json"}, "--shard: "},
		{Request{Shard: "0/2", DryRun: true}, "--shard computes a share of Δ2; --dry-run computes nothing"},
		{Request{Shard: "0/2"}, "--shard needs --save PART"},
	} {
		err := c.r.CheckCombination()
		if err == nil || !strings.HasPrefix(errkind.Render(err, asFlag), c.want) || errkind.Of(err) != errkind.Usage {
			t.Errorf("%+v: %v (kind %v), want a usage error %q…", c.r, err, errkind.Of(err), c.want)
		}
	}
}

// TestRequestOptions: every method name maps to MethodByName's method and
// scheme; an unknown one is a usage error listing MethodNames; τ and the
// dense limit out of range are bad input; a dense limit of 0 disables the
// dense path (-1), not the default.
func TestRequestOptions(t *testing.T) {
	for _, name := range MethodNames {
		r := Request{Tau: 1, Method: name, DenseLimit: 7, TimeBudget: 3}
		if err := r.CheckMethod(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opt, err := r.Options()
		method, scheme, _ := MethodByName(name)
		if err != nil || opt.Method != method || opt.Scheme != scheme || opt.DenseLimit != 7 || opt.TimeBudget != 3 {
			t.Errorf("%s: %+v, %v", name, opt, err)
		}
	}
	err := Request{Tau: 1, Method: "x"}.CheckMethod()
	if errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, asFlag), "--method must be auto, dense, sparse, columns, lanczos, slow-modes, panels or gram, got \"x\"") {
		t.Errorf("unknown method: %v", err)
	}
	for _, tau := range []float64{0, -1} {
		if err := (Request{Tau: tau, Method: "auto"}).CheckMethod(); errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, asFlag), "--tau must be > 0") {
			t.Errorf("τ %g: %v", tau, err)
		}
	}
	if opt, err := (Request{Method: "auto"}).Options(); err != nil || opt.DenseLimit != -1 {
		t.Errorf("dense limit 0: %+v, %v, want -1 (disabled)", opt, err)
	}
	if _, err := (Request{Method: "auto", DenseLimit: -1}).Options(); errkind.Of(err) != errkind.BadInput || !strings.HasPrefix(errkind.Render(err, asFlag), "--dense-limit must be ≥ 0") {
		t.Errorf("dense limit -1: %v", err)
	}
}

// TestRequestCertifySpec: the spec carries the request's τ, α, file and
// the shard as ParseShard reads it; no shard computes the whole graph.
func TestRequestCertifySpec(t *testing.T) {
	g, _, err := laplacian.Generate("karate")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{DenseLimit: 5}
	spec, err := Request{Tau: 2, Alpha: 3, Save: "p.json", Shard: "2/5"}.CertifySpec(g, "karate", opt)
	want := CertifySpec{Graph: g, GraphName: "karate", Tau: 2, Alpha: 3, Options: opt, Save: "p.json", ShardIndex: 2, ShardCount: 5}
	if err != nil || !reflect.DeepEqual(spec, want) {
		t.Errorf("shard: %+v, %v", spec, err)
	}
	if spec, err := (Request{Tau: 2}).CertifySpec(g, "karate", opt); err != nil || spec.ShardCount != 0 {
		t.Errorf("whole graph: %+v, %v", spec, err)
	}
	if _, err := (Request{Shard: "5/5"}).CertifySpec(g, "karate", opt); errkind.Of(err) != errkind.Usage {
		t.Errorf("shard 5/5: %v, want a usage error", err)
	}
}

// TestCheckedLineReport: a good kernel's report is LineReport's (seconds
// aside); CheckLine's refusals come first and are bad input.
func TestCheckedLineReport(t *testing.T) {
	got, err := CheckedLineReport(10, 5, 0.1, 1)
	want, err2 := LineReport(10, 5, 0.1, 1)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	got.Seconds, want.Seconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want LineReport's %+v", got, want)
	}
	for _, c := range []struct {
		n, m int
		T    float64
	}{{0, 5, 0.1}, {10, 0, 0.1}, {10, 5, 0}} {
		if _, err := CheckedLineReport(c.n, c.m, c.T, 1); errkind.Of(err) != errkind.BadInput {
			t.Errorf("%+v: %v, want bad input", c, err)
		}
	}
}

// TestCertifyGraphNotesMerges: a graph read with a pair given twice
// reports the merge (the graph's Merges), one without reports none; Δ2
// is Certify's.
func TestCertifyGraphNotesMerges(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		csv    string
		merged int
	}{{"a,b\nb,c\n", 0}, {"a,b\nb,a\nb,c\n", 1}} {
		g, err := laplacian.ReadCSV(strings.NewReader(c.csv), laplacian.Options{})
		if err != nil {
			t.Fatal(err)
		}
		spec := CertifySpec{Graph: g, Tau: 1, Alpha: 1}
		got, err := CertifyGraph(ctx, spec)
		want, err2 := Certify(ctx, spec)
		if err != nil || err2 != nil || got.Delta2 != want.Delta2 {
			t.Fatalf("%q: Δ2 %v (%v), Certify's %v (%v)", c.csv, got.Delta2, err, want.Delta2, err2)
		}
		if (got.DuplicateEdges != nil) != (c.merged > 0) || (got.DuplicateEdges != nil && got.DuplicateEdges.Merged != c.merged) {
			t.Errorf("%q: duplicate edges %+v, want %d merged", c.csv, got.DuplicateEdges, c.merged)
		}
	}
}

// TestCheckKernel: a graph or the line with its own parameters passes;
// no kernel, both, a parameter of the other kernel, τ spelled twice and
// the line without n, m or τ are usage errors naming the parameters.
func TestCheckKernel(t *testing.T) {
	given := func(ps ...errkind.Param) func(errkind.Param) bool {
		return func(p errkind.Param) bool {
			for _, q := range ps {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	ok := []error{
		CheckKernel(false, "karate", given(ParamMethodName, ParamSaveFile, ParamShard, ParamTau)),
		CheckKernel(true, "", given(ParamLineN, ParamLineM, ParamTau)),
		CheckKernel(true, "", given(ParamLineN, ParamLineM, ParamLineT)),
	}
	for i, err := range ok {
		if err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	for _, c := range []struct {
		line  bool
		graph string
		given []errkind.Param
		want  string
	}{
		{false, "", nil, "give --graph SPEC or --line"},
		{false, "karate", []errkind.Param{ParamLineM}, "--m applies to --line, not --graph"},
		{true, "karate", nil, "give either --graph or --line, not both"},
		{true, "", []errkind.Param{ParamLineN, ParamLineM, ParamTau, ParamDryRun}, "--dry-run applies to --graph, not --line"},
		{true, "", []errkind.Param{ParamLineN, ParamLineM, ParamTau, ParamTimeBudget}, "--time-budget applies to --graph, not --line"},
		{true, "", []errkind.Param{ParamLineN, ParamLineM, ParamTau, ParamLineT}, "give --tau (the line's diffusion time) or its old spelling --T, not both"},
		{true, "", []errkind.Param{ParamLineM, ParamTau}, "--line needs --n"},
		{true, "", []errkind.Param{ParamLineN, ParamTau}, "--line needs --m"},
		{true, "", []errkind.Param{ParamLineN, ParamLineM}, "--line needs --tau"},
	} {
		err := CheckKernel(c.line, c.graph, given(c.given...))
		if errkind.Of(err) != errkind.Usage || errkind.Render(err, asFlag) != c.want {
			t.Errorf("line %v, graph %q, given %v: %v, want usage error %q", c.line, c.graph, c.given, err, c.want)
		}
	}
}
