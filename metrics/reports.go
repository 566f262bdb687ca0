package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// A collector of a local release (serve --collect-order) counts its
// reports (registered by EnableReports):
//
//	reports_received_total                 report lines received
//	reports_accepted_total                 reports verified and stored
//	reports_refused_total{reason}          reports refused, by reason (local.Reason)
//	reports_late_total                     reports refused because the epoch's window had ended
//	epoch_expected_reports{scope,epoch}    nodes the open epoch's order expects
//	epoch_reported{scope,epoch}            nodes that have reported
type reportMetrics struct {
	once     sync.Once
	received prometheus.Counter
	accepted prometheus.Counter
	refused  *prometheus.CounterVec
	late     prometheus.Counter
	expected *prometheus.GaugeVec
	reported *prometheus.GaugeVec
}

// EnableReports registers the collector's report metrics (once).
func (m *Metrics) EnableReports() {
	r := &m.reports
	r.once.Do(func() {
		r.received = prometheus.NewCounter(prometheus.CounterOpts{Name: "graphcloak_reports_received_total",
			Help: "Report lines received by the collector."})
		r.accepted = prometheus.NewCounter(prometheus.CounterOpts{Name: "graphcloak_reports_accepted_total",
			Help: "Reports verified and stored durably."})
		r.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphcloak_reports_refused_total",
			Help: "Reports refused, by reason."}, []string{"reason"})
		r.late = prometheus.NewCounter(prometheus.CounterOpts{Name: "graphcloak_reports_late_total",
			Help: "Reports refused because the epoch's validity window had ended."})
		r.expected = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_epoch_expected_reports",
			Help: "Nodes the open epoch's order expects to report."}, []string{"scope", "epoch"})
		r.reported = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_epoch_reported",
			Help: "Nodes of the open epoch that have reported."}, []string{"scope", "epoch"})
		m.reg.MustRegister(r.received, r.accepted, r.refused, r.late, r.expected, r.reported)
	})
}

// Reports counts one batch: n lines received, accepted of them stored,
// and the refusal reason of each other ("late" is also counted as late).
func (m *Metrics) Reports(received, accepted int, refused []string) {
	m.EnableReports()
	r := &m.reports
	r.received.Add(float64(received))
	r.accepted.Add(float64(accepted))
	for _, why := range refused {
		r.refused.WithLabelValues(why).Inc()
		if why == "late" {
			r.late.Inc()
		}
	}
}

// EpochProgress sets the open epoch's expected and reported node counts.
func (m *Metrics) EpochProgress(scope, epoch string, expected, reported int) {
	m.EnableReports()
	m.reports.expected.WithLabelValues(scope, epoch).Set(float64(expected))
	m.reports.reported.WithLabelValues(scope, epoch).Set(float64(reported))
}

// NewEpoch forgets the previous epoch's progress gauges (a service that
// opens an epoch per slot keeps one epoch's labels).
func (m *Metrics) NewEpoch() {
	m.EnableReports()
	m.reports.expected.Reset()
	m.reports.reported.Reset()
}
