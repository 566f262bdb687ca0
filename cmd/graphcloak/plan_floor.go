package main

import (
	"encoding/json"
	"os"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/sensor"
)

// defaultSensorPolicy is the policy keygen --out-dir provisions with its
// defaults (α = 1, a daily cap ε = 4, the σ floor that cap implies).
func defaultSensorPolicy() sensor.Policy {
	return sensor.Policy{Alpha: 1, MaxEpsilonPerDay: 4}.WithDefaultSigmaFloor()
}

// sensorFloor is the σ floor a local plan keeps to: --sensor-policy's,
// else the default policy's; nil for a central plan.
func sensorFloor(o *planOptions) (*job.SensorFloor, error) {
	if !o.local {
		return nil, nil
	}
	if o.sensorPolicy == "" {
		return &job.SensorFloor{SigmaFloor: defaultSensorPolicy().SigmaFloor, Policy: "keygen's default policy"}, nil
	}
	data, err := os.ReadFile(o.sensorPolicy)
	if err != nil {
		return nil, errkind.Inputf("--sensor-policy: %w", err)
	}
	var named struct{ Node string }
	if err := json.Unmarshal(data, &named); err != nil {
		return nil, errkind.Inputf("--sensor-policy %s is not a policy file: %w", o.sensorPolicy, err)
	}
	p, err := sensor.LoadPolicy(o.sensorPolicy, named.Node)
	if err != nil {
		return nil, errkind.Inputf("--sensor-policy: %w", err)
	}
	return &job.SensorFloor{SigmaFloor: p.SigmaFloor, Policy: "policy " + o.sensorPolicy}, nil
}
