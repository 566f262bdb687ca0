package sensitivity

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Parameters a Request's checks name (errkind.Param), beside ParamSaveFile:
// a command shows each as its user types it (errkind.Render).
const (
	ParamMethodName errkind.Param = "method"
	ParamTau        errkind.Param = "tau"
	ParamAlpha      errkind.Param = "alpha"
	ParamDenseLimit errkind.Param = "dense-limit"
	ParamDryRun     errkind.Param = "dry-run"
	ParamShard      errkind.Param = "shard"
)

// Request is a certified Δ2 of a graph as a command asks for it: the
// method by name (MethodNames), the dense path's node limit (0 disables
// it), a time budget, a certificate file, a dry run (the plan only) or
// one shard "i/N" of a sharded computation.
type Request struct {
	Tau, Alpha float64
	Method     string
	DenseLimit int
	TimeBudget time.Duration
	Save       string
	DryRun     bool
	Shard      string
}

// CheckCombination refuses (usage) a request whose parts contradict each
// other: a dry run computes nothing to save or shard, a shard is only
// useful saved, and a shard must read i/N.
func (r Request) CheckCombination() error {
	if r.DryRun && r.Save != "" {
		return errkind.Usagef("%s computes no Δ2, so there is nothing to %s", ParamDryRun, ParamSaveFile)
	}
	if r.Shard == "" {
		return nil
	}
	if _, _, err := ParseShard(r.Shard); err != nil {
		return errkind.Usagef("%s: %s", ParamShard, err.Error())
	}
	switch {
	case r.DryRun:
		return errkind.Usagef("%s computes a share of Δ2; %s computes nothing (dry-run the whole graph instead)", ParamShard, ParamDryRun)
	case r.Save == "":
		return errkind.Usagef("%s needs %s PART: a shard's result is a partial certificate for graphcloak sensitivity merge", ParamShard, ParamSaveFile)
	}
	return nil
}

// CheckPositive refuses (bad input) a value of param that is not a
// positive, finite number, in the words the sensitivity command uses.
func CheckPositive(param errkind.Param, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return errkind.Inputf("%s must be > 0 and finite, got %v", param, v)
	}
	return nil
}

// CheckMethod refuses (usage) a method MethodByName does not know and
// (bad input) a τ that is not positive and finite.
func (r Request) CheckMethod() error {
	if _, _, ok := MethodByName(r.Method); !ok {
		names := MethodNames
		return errkind.Usagef("%s must be %s or %s, got %q", ParamMethodName, strings.Join(names[:len(names)-1], ", "), names[len(names)-1], r.Method)
	}
	return CheckPositive(ParamTau, r.Tau)
}

// Options are the engine's options r asks for, once CheckMethod passed;
// a negative dense limit is bad input.
func (r Request) Options() (Options, error) {
	if r.DenseLimit < 0 {
		return Options{}, errkind.Inputf("%s must be ≥ 0, got %d", ParamDenseLimit, r.DenseLimit)
	}
	method, scheme, _ := MethodByName(r.Method)
	opt := Options{Method: method, Scheme: scheme, DenseLimit: r.DenseLimit, TimeBudget: r.TimeBudget}
	if opt.DenseLimit == 0 {
		opt.DenseLimit = -1 // dense disabled; Options treats 0 as the default
	}
	return opt, nil
}

// CertifySpec is the computation r asks for on gr (named name) with opt:
// the whole Δ2, or the shard r names, saved to r.Save.
func (r Request) CertifySpec(gr *laplacian.Graph, name string, opt Options) (CertifySpec, error) {
	spec := CertifySpec{Graph: gr, GraphName: name, Tau: r.Tau, Alpha: r.Alpha, Options: opt, Save: r.Save}
	if r.Shard != "" {
		var err error
		if spec.ShardIndex, spec.ShardCount, err = ParseShard(r.Shard); err != nil {
			return CertifySpec{}, errkind.Usagef("%s: %s", ParamShard, err.Error())
		}
	}
	return spec, nil
}

// CheckedLineReport is LineReport of the 1-D heat kernel once CheckLine
// passed; LineReport's own refusals are bad input too.
func CheckedLineReport(n, m int, T, alpha float64) (Report, error) {
	if err := CheckLine(n, m, T); err != nil {
		return Report{}, err
	}
	res, err := LineReport(n, m, T, alpha)
	if err != nil {
		return Report{}, errkind.Input(err)
	}
	return res, nil
}

// Parameters CheckKernel names: the two kernels and the parameters that
// apply to one only.
const (
	ParamGraph      errkind.Param = "graph"
	ParamLine       errkind.Param = "line"
	ParamTimeBudget errkind.Param = "time-budget"
	ParamCacheDir   errkind.Param = "cache-dir" // the work store Δ2 is kept in
)

// CheckKernel refuses (usage) a request for Δ2 that names no kernel or
// both — the line (line) or the graph named graph — or gives a parameter
// of the other (given reports the parameters given): the line needs n,
// m and its τ, spelled tau or T but not both.
func CheckKernel(line bool, graph string, given func(errkind.Param) bool) error {
	lineOnly := []errkind.Param{ParamLineN, ParamLineM, ParamLineT}
	graphOnly := []errkind.Param{ParamMethodName, ParamDenseLimit, ParamTimeBudget, ParamSaveFile, ParamDryRun, ParamShard, ParamCacheDir}
	if !line {
		if graph == "" {
			return errkind.Usagef("give %s SPEC or %s", ParamGraph, ParamLine)
		}
		for _, p := range lineOnly {
			if given(p) {
				return errkind.Usagef("%s applies to %s, not %s", p, ParamLine, ParamGraph)
			}
		}
		return nil
	}
	if graph != "" {
		return errkind.Usagef("give either %s or %s, not both", ParamGraph, ParamLine)
	}
	for _, p := range graphOnly {
		if given(p) {
			return errkind.Usagef("%s applies to %s, not %s", p, ParamGraph, ParamLine)
		}
	}
	if given(ParamLineT) && given(ParamTau) {
		return errkind.Usagef("give %s (the line's diffusion time) or its old spelling %s, not both", ParamTau, ParamLineT)
	}
	for _, p := range []errkind.Param{ParamLineN, ParamLineM} {
		if !given(p) {
			return errkind.Usagef("%s needs %s", ParamLine, p)
		}
	}
	if !given(ParamLineT) && !given(ParamTau) {
		return errkind.Usagef("%s needs %s", ParamLine, ParamTau)
	}
	return nil
}

// CertifyGraph is Certify of spec, its report noting the duplicate edges
// merged when the graph was read (laplacian.Graph.Merges), if any.
func CertifyGraph(ctx context.Context, spec CertifySpec) (Report, error) {
	res, err := Certify(ctx, spec)
	res.NoteMerges(spec.Graph)
	return res, err
}

// NoteMerges notes on r the duplicate edges merged and the self-loops
// skipped when g was read, if any (a Δ2 computed or reused, the graph's
// reading is the same).
func (r *Report) NoteMerges(g *laplacian.Graph) {
	if m := g.Merges(); m.Merged > 0 {
		r.DuplicateEdges = &m
	}
	r.SelfLoopsSkipped = g.Merges().SelfLoops
}
