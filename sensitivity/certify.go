package sensitivity

import (
	"context"
	"time"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/internal/cancel"
	"github.com/graphcloak/graphcloak/laplacian"
)

// ParamSaveFile is the file a sensitivity certificate is saved to
// (CertifySpec.Save).
const ParamSaveFile errkind.Param = "save"

// CertifySpec is a certified Δ2 computation on a loaded graph: the whole
// of it, or one shard of a sharded computation, saved as a certificate
// (a partial one for a shard) when Save is set.
type CertifySpec struct {
	Graph *laplacian.Graph
	// GraphName names the graph in the report (its spec).
	GraphName  string
	Tau, Alpha float64
	Options    Options
	// ShardCount > 0 computes shard ShardIndex of ShardCount of the exact
	// Δ2 (GraphShard), whose partial certificate is then
	// Save's; 0 computes Δ2 of the whole graph.
	ShardIndex, ShardCount int
	// Save, when not empty, is the file the certificate is written to,
	// sealed under MACKey (nil: not sealed); Software is the version it
	// records.
	Save     string
	MACKey   []byte
	Software string
	// Computed, when not nil, hears the Δ2 of the whole graph once it is
	// computed (never a shard's), before it is saved: a store keeps it.
	// Starting, when not nil, is called once just before the computation
	// (a command prints its estimate; a Δ2 a store reuses never calls it).
	Computed func(Result)
	Starting func()
}

// MethodChosen reports whether opt leaves the method to Graph (Method and
// Scheme auto, the default dense limit): any exact Δ2 then answers what
// was asked, while a method named asks for that method's computation.
func (opt Options) MethodChosen() bool {
	d := opt.withDefaults()
	return d.Method == expm.Auto && d.Scheme == SchemeAuto && d.DenseLimit == (Options{}).withDefaults().DenseLimit
}

// Certify runs spec and returns its report, the maximising pair named by
// node keys. It returns ctx.Err() as soon as ctx is done (the numerical
// kernel takes no context: it then finishes in the background). The
// computation's errors are bad input, and so are the certificate's, which
// name ParamSaveFile. The report's seconds include saving the certificate.
func Certify(ctx context.Context, spec CertifySpec) (Report, error) {
	start := time.Now()
	if spec.Starting != nil {
		spec.Starting()
	}
	key := func(i int) any { return spec.Graph.Key(i) }
	if spec.ShardCount > 0 {
		return certifyShard(ctx, spec, start, key)
	}
	s, err := interruptible(ctx, func() (Result, error) {
		return Graph(spec.Graph, spec.Tau, spec.Alpha, spec.Options)
	})
	if err != nil {
		return Report{}, err
	}
	if spec.Computed != nil {
		spec.Computed(s)
	}
	if spec.Save != "" {
		c, err := NewCertificate(spec.Graph, s, spec.Tau, spec.Software)
		if err == nil {
			err = c.Seal(spec.MACKey)
		}
		if err == nil {
			err = SaveCertificate(spec.Save, c)
		}
		if err != nil {
			return Report{}, errkind.Inputf("%v: %w", ParamSaveFile, err)
		}
	}
	res := NewReport(s, time.Since(start).Seconds(), key)
	res.Graph, res.Tau = spec.GraphName, &spec.Tau
	return res, nil
}

// certifyShard is Certify of one shard, started at start.
func certifyShard(ctx context.Context, spec CertifySpec, start time.Time, key func(int) any) (Report, error) {
	p, err := interruptible(ctx, func() (Partial, error) {
		return GraphShard(spec.Graph, spec.Tau, spec.Alpha, spec.Options, spec.ShardIndex, spec.ShardCount)
	})
	if err != nil {
		return Report{}, err
	}
	c, err := NewPartialCertificate(spec.Graph, p, spec.Tau, spec.Software)
	if err == nil {
		err = c.Seal(spec.MACKey)
	}
	if err == nil {
		err = SavePartialCertificate(spec.Save, c)
	}
	if err != nil {
		return Report{}, errkind.Inputf("%v: %w", ParamSaveFile, err)
	}
	res := NewShardReport(p, spec.ShardIndex, spec.ShardCount, spec.Save, time.Since(start).Seconds(), key)
	res.Graph, res.Tau = spec.GraphName, &spec.Tau
	return res, nil
}

// interruptible runs fn, a computation without cancellation points, and
// returns ctx.Err() as soon as ctx is done; fn's own errors are bad input.
func interruptible[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	return cancel.Run(ctx, func() (T, error) {
		v, err := fn()
		if err != nil {
			return v, errkind.Input(err)
		}
		return v, nil
	})
}

// MergeCertificates merges the partial certificates in files, which must
// be every shard of one computation exactly once (
// MergePartials, verifying their MACs under key), into the certificate
// one process would have written, seals it under key (nil: not sealed),
// writes it to save and returns its report. Its errors are bad input; the
// certificate's name ParamSaveFile.
func MergeCertificates(files []string, save string, key []byte) (Report, error) {
	start := time.Now()
	parts := make([]PartialCertificate, len(files))
	for k, f := range files {
		p, err := LoadPartialCertificate(f)
		if err != nil {
			return Report{}, errkind.Input(err)
		}
		parts[k] = p
	}
	c, err := MergePartials(parts, files, key)
	if err != nil {
		return Report{}, errkind.Input(err)
	}
	err = c.Seal(key)
	if err == nil {
		err = SaveCertificate(save, c)
	}
	if err != nil {
		return Report{}, errkind.Inputf("%v: %w", ParamSaveFile, err)
	}
	return NewMergeReport(c, parts, time.Since(start).Seconds()), nil
}

// GraphContext is Graph made interruptible: it returns ctx.Err() as soon
// as ctx is done. The numerical kernel takes no context, so it then
// finishes in the background and its result is dropped; a CLI exits at
// once on SIGINT.
// Its progress ends when it returns: the kernel left running reports no
// more.
func GraphContext(ctx context.Context, g *laplacian.Graph, tau, alpha float64, opt Options) (Result, error) {
	var end func(ok bool)
	opt.Progress, end = endingProgress(opt.Progress)
	r, err := cancel.Run(ctx, func() (Result, error) {
		return Graph(g, tau, alpha, opt)
	})
	end(err == nil)
	return r, err
}
