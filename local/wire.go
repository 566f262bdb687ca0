package local

import "github.com/graphcloak/graphcloak/sensor"

// The wire types are package sensor's (the protocol's one
// implementation); local names them for brevity.
type (
	Order      = sensor.Order
	OrderGraph = sensor.OrderGraph
	Sampler    = sensor.Sampler
	Report     = sensor.Report
)

const (
	OrderKind  = sensor.OrderKind
	ReportKind = sensor.ReportKind
)
