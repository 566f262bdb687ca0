package privacy

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

// A calibration stored as its record (through JSON) and restored on a new
// geometry of the same graph and partition publishes the same
// distributions, to the bit, for every mechanism; records that are not the
// request's, or whose weights were changed so that an edge loses more than
// ε, are refused.
func TestCalibrationRecordRoundTrip(t *testing.T) {
	ctx := context.Background()
	g, part, err := laplacian.Generate("sbm:sizes=20x20x20x20,pin=0.3,pout=0.02,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		eps       float64
		capDist   int
		mechanism string
	}{{1, 0, AnswerEnvelope}, {2, 3, AnswerGeometric}, {1, 1, AnswerRandomizedResponse}} {
		cg, err := NewCommunityGeometry(ctx, g, part)
		if err != nil {
			t.Fatal(err)
		}
		cal, err := CalibrateAnswer(ctx, cg, tc.eps, 1, tc.capDist)
		if err != nil {
			t.Fatal(err)
		}
		if cal.Mechanism != tc.mechanism {
			t.Fatalf("ε = %g cap %d: mechanism %s, want %s (the test's premise)", tc.eps, tc.capDist, cal.Mechanism, tc.mechanism)
		}
		b, err := json.Marshal(cal.Record())
		if err != nil {
			t.Fatal(err)
		}
		load := func() CalibrationRecord {
			var rec CalibrationRecord
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			return rec
		}
		fresh, err := NewCommunityGeometry(ctx, g, part)
		if err != nil {
			t.Fatal(err)
		}
		got, err := RestoreCalibration(ctx, fresh, tc.eps, 1, tc.capDist, load())
		if err != nil {
			t.Fatalf("%s: %v", tc.mechanism, err)
		}
		if got.Loss != cal.Loss || got.Accuracy != cal.Accuracy {
			t.Errorf("%s: restored loss %v accuracy %v, calibrated %v %v", tc.mechanism, got.Loss, got.Accuracy, cal.Loss, cal.Accuracy)
		}
		for s := 0; s < g.N(); s++ {
			p, q := cal.ProbabilitiesAt(cg, s), got.ProbabilitiesAt(fresh, s)
			for o := range p {
				if p[o] != q[o] {
					t.Fatalf("%s: P(%d | %d) = %v restored, %v calibrated", tc.mechanism, o, s, q[o], p[o])
				}
			}
		}
		if again, err := CalibrateAnswer(ctx, fresh, tc.eps, 1, tc.capDist); err != nil || again.Loss != got.Loss || again.envelope != got.envelope {
			t.Errorf("%s: the restored calibration is not the geometry's own afterwards", tc.mechanism)
		}
		if _, err := RestoreCalibration(ctx, fresh, 2*tc.eps, 1, tc.capDist, load()); err == nil {
			t.Errorf("%s: a record of ε = %g restored for ε = %g", tc.mechanism, tc.eps, 2*tc.eps)
		}
		// Weights that make one node answer its community far more often
		// than its neighbours: the recomputed loss exceeds ε.
		rec := load()
		switch {
		case rec.Envelope != nil:
			for v := range rec.Envelope.A {
				rec.Envelope.A[v] /= 1 + int64(v%2)*10
			}
		default:
			rec.Calibration.ScaleNum *= 4
			rec.Calibration.Scale *= 4
		}
		if _, err := RestoreCalibration(ctx, fresh, tc.eps, 1, tc.capDist, rec); err == nil {
			t.Errorf("%s: a record whose loss exceeds ε was restored", tc.mechanism)
		}
	}
}
