package textreport

import (
	"fmt"
	"io"

	"github.com/graphcloak/graphcloak/answer"
)

// Audit prints what a pass of the answer's certified recovery did: a
// shard's part saved, followed by next (how its reader merges the
// parts), or the certificate with its classes of sources.
func Audit(out io.Writer, r answer.AuditReport, next string) {
	if r.EstimateOnly && r.Reused {
		fmt.Fprintf(out, "audit of graph %s at τ = %g, fit tolerance %g: reused from the store, ~0 s (the certificate %s verifies); nothing computed, nothing written\n",
			r.Graph, r.Tau, r.FitTolerance, r.Save)
		return
	}
	if r.EstimateOnly {
		fmt.Fprintf(out, "audit of graph %s at τ = %g, fit tolerance %g: %s; nothing computed, nothing written\n",
			r.Graph, r.Tau, r.FitTolerance, r.Estimate)
		if r.ResumedSources > 0 {
			fmt.Fprintf(out, "a checkpoint beside %s holds %d of the %d sources: the run would resume from it\n", r.Save, r.ResumedSources, r.NodeCount)
		}
		return
	}
	if r.Shard != "" {
		fmt.Fprintf(out, "audit shard %s of graph %s (%d nodes) at τ = %g, fit tolerance %g: saved part %s (%d ms); next: %s\n",
			r.Shard, r.Graph, r.NodeCount, r.Tau, r.FitTolerance, r.Save, r.Millis, next)
		return
	}
	how := "certificate"
	if r.Reused {
		how = "certificate reused (it verified; the refit sample ran again)"
	}
	noise := ""
	if r.SensorNoiseBound > 0 {
		noise = fmt.Sprintf(", sensor noise up to %.3g of the mean reading", r.SensorNoiseBound)
	}
	if r.SensorNoise > 0 {
		noise = fmt.Sprintf(", Gaussian sensor noise of rms %g stated: the model admits up to %.3g of the mean reading, so an answer is (ε, δ)-DP with δ = %.3g (noise at 1.5× the rms; %.3g at the rms)",
			r.SensorNoise, r.SensorNoiseBound, r.SensorNoiseDelta, r.SensorNoiseDeltaAtStated)
	}
	fmt.Fprintf(out, "audit of graph %s (%d nodes) at τ = %g, fit tolerance %g%s: %d classes of sources (%d nodes merged), %d refits failed; %s %s (%d ms)\n",
		r.Graph, r.NodeCount, r.Tau, r.FitTolerance, noise, r.Classes, r.NodesMerged, r.RefitFailures, how, r.Save, r.Millis)
	if r.ResumedSources > 0 {
		fmt.Fprintf(out, "resumed from an interrupted run's checkpoint: %d of the %d sources were done before\n", r.ResumedSources, r.NodeCount)
	}
}
