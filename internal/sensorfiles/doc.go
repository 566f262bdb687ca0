// Package sensorfiles reads a sensor's report from its files (the signed
// order, the keys, the policy, the odometer, the value) and gives the
// sensor's refusals their kinds (SensorReport). Its errors name
// parameters (errkind.Param), never a command's flags.
package sensorfiles
