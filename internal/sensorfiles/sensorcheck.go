package sensorfiles

import "github.com/graphcloak/graphcloak/errkind"

// Parameters a sensor's request names besides the files'.
const (
	ParamNode     errkind.Param = "node"
	ParamValue    errkind.Param = "value"
	ParamOdometer errkind.Param = "odometer"
)

// Check refuses a request SensorReport cannot read, before any file is:
// every file and the node named, exactly one of the value and its file,
// standard input read once, and the key, policy, odometer and the
// coordinator's key files, never standard input.
func (r SensorReportRequest) Check() error {
	for _, f := range []struct {
		name errkind.Param
		v    string
	}{{ParamOrder, r.Order}, {ParamCoordinatorKey, r.CoordinatorKey}, {ParamSensorKey, r.Key}, {ParamNode, r.Node},
		{ParamPolicy, r.Policy}, {ParamOdometer, r.Odometer}} {
		if f.v == "" {
			return errkind.Usagef("sensor report needs %s", f.name)
		}
	}
	switch {
	case r.ValueGiven == (r.ValueFile != ""):
		return errkind.Usagef("sensor report needs exactly one of %s V and %s FILE", ParamValue, ParamValueFile)
	case r.Order == "-" && r.ValueFile == "-":
		return errkind.Usagef("%s - and %s - cannot both read standard input", ParamOrder, ParamValueFile)
	case r.Odometer == "-" || r.Key == "-" || r.CoordinatorKey == "-" || r.Policy == "-":
		return errkind.Usagef("%s, %s, %s and %s name files, not standard input (-)", ParamOdometer, ParamPolicy, ParamSensorKey, ParamCoordinatorKey)
	}
	return nil
}
