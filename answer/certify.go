package answer

import (
	"context"
	"fmt"
	"time"

	"log/slog"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// AuditReport is what a pass of a private answer's certified recovery
// over every source of a graph did: the whole pass (a certificate), one
// shard of it (a part) or the merge of every part.
type AuditReport struct {
	Graph        string  `json:"graph"`
	NodeCount    int     `json:"nodeCount"`
	Tau          float64 `json:"tau"`
	FitTolerance float64 `json:"fitTolerance"`
	Shard        string  `json:"shard,omitempty"`
	Shards       int     `json:"shards,omitempty"` // a merge's N
	Precise      bool    `json:"precise"`
	Classes      int     `json:"classes,omitempty"`
	// SensorNoise is the bound ν the tolerance was derived from (0: given);
	// SensorNoiseBound the model's ν at this tolerance (unsharded runs).
	SensorNoise      float64 `json:"sensorNoise,omitempty"`
	SensorNoiseBound float64 `json:"sensorNoiseBound,omitempty"`
	// SensorNoiseDelta is δ of an answer on this model under the stated
	// noise (Model.NoiseDelta, at 1.5× the rms), SensorNoiseDeltaAtStated
	// the same bound at the stated rms (unsharded runs with SensorNoise).
	SensorNoiseDelta         float64 `json:"sensorNoiseDelta,omitempty"`
	SensorNoiseDeltaAtStated float64 `json:"sensorNoiseDeltaAtStated,omitempty"`
	// Reused: the certificate at Save already verified (sealed under the
	// cache's key, this graph, τ and tolerance): its pass was not run
	// again; the refit sample was.
	Reused        bool   `json:"reused"`
	NodesMerged   int    `json:"nodesMerged"`
	RefitFailures int    `json:"refitFailures"`
	Save          string `json:"save"`
	Millis        int64  `json:"computeMillis"`
	// ResumedSources were taken from an interrupted run's checkpoint.
	ResumedSources int `json:"resumedSources,omitempty"`
	// Estimate is what the pass was forecast to take (EstimateAudit);
	// EstimateOnly: nothing was computed (audit --estimate).
	Estimate     *WorkEstimate `json:"estimate,omitempty"`
	EstimateOnly bool          `json:"estimateOnly,omitempty"`
}

// Certify runs the certified recovery of a private answer over
// the sources of g at τ (with opt.Shard set, that shard's share) and
// saves what it proved at cache.Path: the certificate (Cache.Store),
// or the shard's part (SavePart). The report's Graph and Shard name
// what the caller asked for; Certify leaves them empty.
func Certify(ctx context.Context, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, cache Cache) (AuditReport, error) {
	start := time.Now()
	r := AuditReport{NodeCount: g.N(), Tau: tau, FitTolerance: opt.Tol, Save: cache.Path}
	if opt.Shard.N > 0 {
		part, err := NewPart(ctx, g, tau, opt, cache.Software)
		if err != nil {
			return AuditReport{}, err
		}
		if err := SavePart(cache.Path, part, cache.MACKey); err != nil {
			return AuditReport{}, err
		}
		r.Precise = opt.Precise
	} else {
		// A certificate that verifies is reused, not run again: plan,
		// locate, serve and audit share one pass per graph, τ and T.
		m, err := cache.Model(ctx, g, tau, make([]int, g.N()), nil, opt, slog.New(slog.DiscardHandler))
		if err != nil {
			return AuditReport{}, err
		}
		r.Precise, r.Classes, r.NodesMerged, r.RefitFailures = m.Certifier.Precise(), m.Classes.Count, m.Classes.Merged, m.Classes.RefitFailures
		r.FitTolerance, r.SensorNoise, r.SensorNoiseBound, r.Reused = m.Certifier.Tol(), opt.SensorNoise, m.Certifier.NoiseBound(), m.restored
		r.SensorNoiseDelta, r.SensorNoiseDeltaAtStated = m.NoiseDelta(), m.Certifier.NoiseDelta(opt.SensorNoise, 1)
	}
	r.Millis = time.Since(start).Milliseconds()
	return r, nil
}

// MergeAudit merges the parts of a sharded pass on g at τ and tol into the
// certificate at cache.Path (MergeParts) and reports it; parts must
// not be empty. The report's Graph is the caller's to fill.
func MergeAudit(ctx context.Context, g *laplacian.Graph, tau, tol float64, parts []Part, cache Cache) (AuditReport, error) {
	start := time.Now()
	sc, err := MergeParts(ctx, g, tau, tol, parts, cache)
	if err != nil {
		return AuditReport{}, err
	}
	return AuditReport{NodeCount: g.N(), Tau: tau, FitTolerance: tol, Shards: len(parts), Precise: parts[0].Part.Precise,
		Classes: sc.Count, NodesMerged: sc.Merged, RefitFailures: sc.RefitFailures, Save: cache.Path,
		Millis: time.Since(start).Milliseconds()}, nil
}

// LoadParts reads the parts at paths (LoadPart), each checked
// under macKey; an unreadable or unauthenticated part is bad input named
// by its path.
func LoadParts(paths []string, macKey []byte) ([]Part, error) {
	parts := make([]Part, 0, len(paths))
	for _, path := range paths {
		p, err := LoadPart(path, macKey)
		if err != nil {
			return nil, errkind.Input(fmt.Errorf("%s: %w", path, err))
		}
		parts = append(parts, p)
	}
	return parts, nil
}
