package sensitivity

import (
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
