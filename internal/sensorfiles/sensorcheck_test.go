package sensorfiles

import (
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
)

// SensorReportRequest.Check refuses, as usage errors naming the
// parameters, a request missing a file or the node, with both or neither
// of the value and its file, reading standard input twice, or reading a
// key, policy or odometer from it.
func TestSensorReportRequestCheck(t *testing.T) {
	ok := SensorReportRequest{Order: "o.json", CoordinatorKey: "c.pub", Key: "s.key", Node: "room-12", Policy: "p.json", Odometer: "odo.json", ValueFile: "v.txt"}
	name := func(p errkind.Param) string { return "<" + string(p) + ">" }
	for _, c := range []struct {
		name string
		edit func(*SensorReportRequest)
		text string // "": accepted
	}{
		{"a value file", func(*SensorReportRequest) {}, ""},
		{"a value", func(r *SensorReportRequest) { r.ValueFile, r.ValueGiven = "", true }, ""},
		{"the order on stdin", func(r *SensorReportRequest) { r.Order = "-" }, ""},
		{"no order", func(r *SensorReportRequest) { r.Order = "" }, "sensor report needs <epoch order>"},
		{"no node", func(r *SensorReportRequest) { r.Node = "" }, "sensor report needs <node>"},
		{"no odometer", func(r *SensorReportRequest) { r.Odometer = "" }, "sensor report needs <odometer>"},
		{"no value", func(r *SensorReportRequest) { r.ValueFile = "" }, "exactly one of <value> V and <value file> FILE"},
		{"both values", func(r *SensorReportRequest) { r.ValueGiven = true }, "exactly one of"},
		{"stdin twice", func(r *SensorReportRequest) { r.Order, r.ValueFile = "-", "-" }, "<epoch order> - and <value file> - cannot both read standard input"},
		{"a key on stdin", func(r *SensorReportRequest) { r.Key = "-" }, "<odometer>, <sensor policy>, <sensor key> and <coordinator key> name files, not standard input (-)"},
		{"a policy on stdin", func(r *SensorReportRequest) { r.Policy = "-" }, "name files, not standard input"},
	} {
		r := ok
		c.edit(&r)
		err := r.Check()
		if c.text == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		} else if errkind.Of(err) != errkind.Usage || !strings.Contains(errkind.Render(err, name), c.text) {
			t.Errorf("%s: %v, want usage naming %q", c.name, err, c.text)
		}
	}
}
