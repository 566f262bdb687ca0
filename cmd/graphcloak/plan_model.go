package main

import (
	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/privacy"
)

// withSensorModel puts in spec the sensor model plan forecasts the
// private answer under (job.ForecastSpec.Sensor): the scope's when bal
// (--ledger/--scope) has one — flags stating another are refused, as
// locate refuses them — else the one the flags state with --drift-hops
// or a part beyond the noise. --sensor-noise alone stays the answer's
// noise on a scope without a model (locate's --sensor-noise), no model.
func (o *planOptions) withSensorModel(spec *job.ForecastSpec, bal *privacy.Balance) error {
	var scope privacy.SensorModel
	if bal != nil {
		scope = bal.Budget.Sensor
	}
	stated := o.model.stated
	var m privacy.SensorModel
	switch {
	case !scope.IsZero() && stated != nil && !sameStated(*stated, scope, o):
		return errkind.Usagef("scope %q was created with the sensor model (%s); the flags state (%s): leave them out to forecast the scope's model",
			bal.Scope, scope, stated)
	case !scope.IsZero():
		m = scope
	case o.modelGiven && stated == nil:
		return errkind.Usagef("--drift-hops and the sensor model's parts forecast a scope's sensor model: state its noise too (--sensor-noise, or --sensor-noise-rms with --min-source-mass)")
	case o.modelGiven:
		m = *stated
		m.DriftHops = o.driftHops
		if err := m.Validate(); err != nil {
			return errkind.Usagef("the stated sensor model: %s", err.Error())
		}
	default:
		return nil
	}
	spec.Sensor = m
	spec.SensorNoise = noiseFlags{Nu: m.Noise, RMS: m.NoiseRMS, MinSourceMass: m.MinSourceMass}.At(spec.Simulation.Graph.N())
	return nil
}

// sameStated reports whether the flags' model is the scope's: its drift
// allowance compared only when --drift-hops was given.
func sameStated(stated, scope privacy.SensorModel, o *planOptions) bool {
	stated.DriftHops = scope.DriftHops
	if o.driftGiven && o.driftHops != scope.DriftHops {
		return false
	}
	return stated == scope
}
