package answer

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
)

// CalibrationAlpha is the α the mechanism is calibrated at for a
// guarantee per alpha hops with a drift allowance of d hops: ⌈α⌉·(1+2d).
// Outside the model the centre at each end of an edge may drift d hops,
// so the published distributions may be 1+2d hops apart; at a per-hop
// scale of ε/(⌈α⌉·(1+2d)) their loss is still at most ε/⌈α⌉ per hop of
// the source (group privacy). alpha itself when d = 0; 1 when d is
// privacy.DriftAny (randomized response at ε: CalibrationCap).
func CalibrationAlpha(alpha float64, d int) float64 {
	switch {
	case d == privacy.DriftAny:
		return 1
	case d <= 0:
		return alpha
	}
	return math.Ceil(alpha) * float64(1+2*d)
}

// CalibrationCap is the distance cap the mechanism is calibrated with:
// the one asked for, or 1 (randomized response) under privacy.DriftAny,
// whose loss between any two centres is ε — a centre moved anywhere by
// any readings costs no more than one moved a hop (derivations §5.1b).
func CalibrationCap(capDist, d int) int {
	if d == privacy.DriftAny {
		return 1
	}
	return capDist
}

// CheckDrift refuses cal under privacy.DriftAny unless its loss between
// any two centres of m's geometry, computed from the published
// distributions themselves, is at most ε: that, not the per-edge audit,
// is what covers readings the model cannot explain. Nothing to check for
// a drift of d hops (measured, docs/guarantee.md).
func (m *Model) CheckDrift(ctx context.Context, cal privacy.AnswerCalibration, d int) error {
	if d != privacy.DriftAny {
		return nil
	}
	loss, err := m.AnyPairLoss(ctx, cal)
	if err != nil {
		return err
	}
	if loss > cal.Epsilon*(1+auditSlack) {
		return &driftError{Loss: loss, Epsilon: cal.Epsilon}
	}
	return nil
}

// AnyPairLoss is the largest |ln P(o|v)/P(o|w)| over every output o and
// every two nodes v, w of m's geometry — the loss between the answers to
// any two reading vectors, whatever centres they fit:
// max_o (max_v ln P(o|v) − min_w ln P(o|w)). Remembered by calibration
// (a function of the model and cal alone, like Audit).
func (m *Model) AnyPairLoss(ctx context.Context, cal privacy.AnswerCalibration) (float64, error) {
	m.mu.Lock()
	loss, ok := m.anyLosses[cal]
	m.mu.Unlock()
	if ok {
		return loss, nil
	}
	loss, err := m.anyPairLoss(ctx, cal)
	if err == nil {
		m.mu.Lock()
		if m.anyLosses == nil {
			m.anyLosses = map[privacy.AnswerCalibration]float64{}
		}
		m.anyLosses[cal] = loss
		m.mu.Unlock()
	}
	return loss, err
}

// anyPairLoss is AnyPairLoss without the memory.
func (m *Model) anyPairLoss(ctx context.Context, cal privacy.AnswerCalibration) (float64, error) {
	lp, err := m.logProbabilitiesOf(ctx, cal, max(1, runtime.GOMAXPROCS(0)))
	if err != nil {
		return 0, err
	}
	k := m.Geometry.K()
	hi, lo := make([]float64, k), make([]float64, k)
	for o := range k {
		hi[o], lo[o] = math.Inf(-1), math.Inf(1)
	}
	for v := range m.Geometry.N() {
		for o, l := range lp(v) {
			hi[o], lo[o] = max(hi[o], l), min(lo[o], l)
		}
	}
	worst := 0.0
	for o := range k {
		worst = max(worst, hi[o]-lo[o])
	}
	return worst, nil
}

// driftError refuses an answer under privacy.DriftAny whose mechanism's
// loss between two centres exceeds ε (nothing is charged).
type driftError struct{ Loss, Epsilon float64 }

func (e *driftError) Error() string {
	return fmt.Sprintf("graphcloak: the scope's drift allowance is any (readings outside the model may move the answer's centre anywhere), but the mechanism's loss between two centres is %.6g > ε = %g; nothing was charged", e.Loss, e.Epsilon)
}

// Kind: like a failed audit, a refusal of the job's input.
func (*driftError) Kind() errkind.Kind { return errkind.BadInput }
