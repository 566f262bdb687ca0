// Package metrics exposes a scheduled graphcloak's state to Prometheus
// (github.com/prometheus/client_golang) and answers health checks.
//
// Metrics (all prefixed graphcloak_):
//
//	runs_total{command,status}             runs ended, by command (release, locate) and status
//	run_duration_seconds{command}          histogram of run durations
//	nodes_processed_total{command}         nodes read by finished runs
//	privacy_rho_spent{scope}               zCDP ρ charged so far
//	privacy_rho_remaining{scope}           ρ a Gaussian release may still cost
//	budget_refusals_total{scope}           releases refused because the budget would be exceeded
//	locate_noise{scope}                    the last localisation's verdict: 1 noise (not a finding), 0 an answer
//	last_success_timestamp_seconds{command} Unix time of the last succeeded run
//	slots_skipped_total                    slots skipped because the previous run was still going
//	sensitivity_reused_total               releases that reused a cached Δ2 certificate
//	answer_outside_model_total{scope,action} private answers whose readings were not one source's
//	                                       diffusion at τ: refused, or answered by randomized response (rr)
//	step_done{step}, step_total{step}      a long step's progress (the answer audit's sources,
//	                                       Δ2's edges, …): its last report; done = total once it ended
//	step_eta_seconds{step}                 its time left at the rate so far (0 when done)
//
// plus the standard Go and process collectors (goroutines, resident
// memory, open file descriptors). No label ever holds a reading, a key or
// a secret: scopes and command names only.
package metrics

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the registry of one serving process.
type Metrics struct {
	reg            *prometheus.Registry
	runs           *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	nodes          *prometheus.CounterVec
	rhoSpent       *prometheus.GaugeVec
	rhoRemaining   *prometheus.GaugeVec
	budgetRefusals *prometheus.CounterVec
	locateNoise    *prometheus.GaugeVec
	lastSuccess    *prometheus.GaugeVec
	skipped        prometheus.Counter
	reused         prometheus.Counter
	outsideModel   *prometheus.CounterVec
	stepDone       *prometheus.GaugeVec
	stepTotal      *prometheus.GaugeVec
	stepETA        *prometheus.GaugeVec

	reports reportMetrics // a collector's (EnableReports)

	mu       sync.Mutex
	stopping bool
	last     map[string]lastRun // by command
}

type lastRun struct {
	Status string    `json:"status"`
	At     time.Time `json:"at"`
}

// New registers every metric on a fresh registry.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), last: map[string]lastRun{}}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphcloak_runs_total",
		Help: "Runs ended, by command and status."}, []string{"command", "status"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "graphcloak_run_duration_seconds",
		Help: "Duration of runs.", Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 12)}, []string{"command"})
	m.nodes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphcloak_nodes_processed_total",
		Help: "Nodes read by finished runs."}, []string{"command"})
	m.rhoSpent = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_privacy_rho_spent",
		Help: "zCDP rho charged to the scope so far."}, []string{"scope"})
	m.rhoRemaining = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_privacy_rho_remaining",
		Help: "zCDP rho a Gaussian release may still cost in the scope (by either of the ledger's accountings)."}, []string{"scope"})
	m.budgetRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphcloak_budget_refusals_total",
		Help: "Releases refused because the scope's budget would be exceeded."}, []string{"scope"})
	m.locateNoise = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_locate_noise",
		Help: "The scope's last localisation's verdict: 1 noise (not a finding), 0 an answer."}, []string{"scope"})
	m.lastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_last_success_timestamp_seconds",
		Help: "Unix time of the last succeeded run."}, []string{"command"})
	m.skipped = prometheus.NewCounter(prometheus.CounterOpts{Name: "graphcloak_slots_skipped_total",
		Help: "Slots skipped because the previous run was still going."})
	m.reused = prometheus.NewCounter(prometheus.CounterOpts{Name: "graphcloak_sensitivity_reused_total",
		Help: "Releases that reused a cached sensitivity certificate."})
	m.outsideModel = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphcloak_answer_outside_model_total",
		Help: "Private answers whose readings were not one source's diffusion at tau: refused, or answered by randomized response (rr)."},
		[]string{"scope", "action"})
	m.stepDone = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_step_done",
		Help: "A long step's units done at its last report (the answer audit's sources, Δ2's edges, …)."}, []string{"step"})
	m.stepTotal = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_step_total",
		Help: "A long step's units in all (done = total once it ended)."}, []string{"step"})
	m.stepETA = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "graphcloak_step_eta_seconds",
		Help: "A long step's time left at its rate so far (0 when done)."}, []string{"step"})
	for _, c := range []prometheus.Collector{m.runs, m.duration, m.nodes, m.rhoSpent, m.rhoRemaining,
		m.budgetRefusals, m.locateNoise, m.lastSuccess, m.skipped, m.reused, m.outsideModel, m.stepDone, m.stepTotal, m.stepETA,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	return m
}

// Run records a run of command that ended with status after d, having
// read nodes nodes.
func (m *Metrics) Run(command, status string, d time.Duration, nodes int) {
	m.runs.WithLabelValues(command, status).Inc()
	m.duration.WithLabelValues(command).Observe(d.Seconds())
	m.nodes.WithLabelValues(command).Add(float64(nodes))
	now := time.Now()
	if status == "succeeded" {
		m.lastSuccess.WithLabelValues(command).Set(float64(now.UnixNano()) / 1e9)
	}
	m.mu.Lock()
	m.last[command] = lastRun{Status: status, At: now.UTC()}
	m.mu.Unlock()
}

// Budget records the spend of scope.
func (m *Metrics) Budget(scope string, spent, remaining float64) {
	m.rhoSpent.WithLabelValues(scope).Set(spent)
	m.rhoRemaining.WithLabelValues(scope).Set(remaining)
}

// LocateVerdict records the verdict of scope's last localisation.
func (m *Metrics) LocateVerdict(scope string, noise bool) {
	v := 0.0
	if noise {
		v = 1
	}
	m.locateNoise.WithLabelValues(scope).Set(v)
}

// BudgetRefused counts a release of scope refused by its budget.
func (m *Metrics) BudgetRefused(scope string) { m.budgetRefusals.WithLabelValues(scope).Inc() }

// AnswerOutsideModel counts a private answer whose readings were outside
// the model: action "refused" or "rr".
func (m *Metrics) AnswerOutsideModel(scope, action string) {
	m.outsideModel.WithLabelValues(scope, action).Inc()
}

// StepProgress records a long step's last report: done of total, eta
// left.
func (m *Metrics) StepProgress(step string, done, total int, eta time.Duration) {
	m.stepDone.WithLabelValues(step).Set(float64(done))
	m.stepTotal.WithLabelValues(step).Set(float64(total))
	m.stepETA.WithLabelValues(step).Set(eta.Seconds())
}

// SlotSkipped counts a slot skipped because a run was still going.
func (m *Metrics) SlotSkipped() { m.skipped.Inc() }

// SensitivityReused counts a release that reused a cached Δ2.
func (m *Metrics) SensitivityReused() { m.reused.Inc() }

// Stopping makes /healthz answer 503 from now on (shutdown has begun).
func (m *Metrics) Stopping() {
	m.mu.Lock()
	m.stopping = true
	m.mu.Unlock()
}

// Handler serves /metrics (Prometheus text format) and /healthz: 200 with
// the last run of each command while serving, 503 once shutdown began.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		m.mu.Lock()
		body := map[string]any{"status": "ok", "lastRuns": m.last}
		code := http.StatusOK
		if m.stopping {
			body["status"], code = "stopping", http.StatusServiceUnavailable
		}
		data, err := json.Marshal(body)
		m.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write(append(data, '\n'))
	})
	return mux
}
