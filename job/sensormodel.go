package job

import (
	"context"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
)

// adoptSensorModel puts the scope's sensor model (privacy.Budget.Sensor)
// in the spec, before anything is read. An answer that states another
// model, or a fit tolerance, on a scope with one is refused (a usage
// error): the model is the deployment's, fixed at budget --init, so the
// same readings cannot be asked again under a model chosen to make them
// fit. A scope without a model (every ledger made before models) answers
// under the model the answer states, as before, and refuses one stating
// parts beyond Gaussian noise (no drift allowance there). A scope with a
// model answers with answer.MismatchNearest (no decision published) and
// its drift allowance (privacy.SensorModel.DriftHops, calibrated in
// answer.CalibrationAlpha and CalibrationCap), which is what covers the
// model's other parts (an ADC step, a gain tolerance, faulty sensors, a
// noise peak) and anything else: under privacy.DriftAny, the default,
// randomized response at ε, proven for any readings (so a cap above 1 is
// refused); docs/guarantee.md, "Sensor imperfections". It refuses
// another policy.
func (p *AnswerPlan) adoptSensorModel(ctx context.Context) error {
	s := &p.Spec
	b, err := p.env.Ledger.Balance(ctx, s.Scope)
	if err != nil || len(b) != 1 {
		return err // a missing scope: refused here as the charge would
	}
	m := b[0].Budget.Sensor
	if m.IsZero() {
		if s.Stated != nil {
			return notCertified(*s.Stated)
		}
		return nil
	}
	if s.FitToleranceGiven {
		return errkind.Usagef("scope %q was created with the sensor model (%s) (%v fixes it: the deployment's, not the query's); this answer states a %v: leave it out to answer under the scope's model",
			s.Scope, m, privacy.ParamCreateLedger, recovery.ParamFitTolerance)
	}
	if s.Stated != nil && !sameModel(*s.Stated, m) {
		return errkind.Usagef("scope %q was created with the sensor model (%s) (%v fixes it: the deployment's, not the query's); this answer states (%s): leave the sensor model out to answer under the scope's",
			s.Scope, m, privacy.ParamCreateLedger, s.Stated)
	}
	if s.OnMismatchGiven && s.OnMismatch != answer.MismatchNearest {
		return errkind.Usagef("scope %q has a sensor model: its answers are answered at the nearest fit (%v %s), which publishes no decision; %s would publish whether the readings fit, which under a faulty sensor depends on where the source is",
			s.Scope, ParamOnMismatch, answer.MismatchNearest, s.OnMismatch)
	}
	if m.DriftHops == privacy.DriftAny && s.Cap > 1 {
		return errkind.Usagef("scope %q answers readings outside its sensor model (%s) by randomized response (%v 1), the one mechanism whose loss between any two centres is ε; %v %d would let a faulty sensor move the answer beyond ε",
			s.Scope, m, ParamAnswerCap, ParamAnswerCap, s.Cap)
	}
	s.SensorNoise, s.SensorNoiseRMS, s.MinSourceMass = m.Noise, m.NoiseRMS, m.MinSourceMass
	s.OnMismatch, s.DriftHops = answer.MismatchNearest, m.DriftHops
	p.sensor = m
	return nil
}

// sameModel reports whether an answer's stated model is the scope's: the
// drift allowance is the scope's alone (locate has no flag for it).
func sameModel(stated, scope privacy.SensorModel) bool {
	stated.DriftHops = scope.DriftHops
	return stated == scope
}

// notCertified refuses a model with parts beyond Gaussian noise stated by
// an answer on a scope without a model: only a scope's model carries the
// drift allowance that covers them (docs/guarantee.md).
func notCertified(m privacy.SensorModel) error {
	if m.GaussianOnly() {
		return nil
	}
	return errkind.Usagef("the sensor model (%s) has parts beyond Gaussian noise (an ADC step, a gain tolerance, faulty sensors or a noise peak) that only a scope's sensor model covers (state them when the scope is created, %v, with its drift allowance): refused before any reading is read (docs/guarantee.md)", m, privacy.ParamCreateLedger)
}
