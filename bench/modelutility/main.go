// Command modelutility measures what a scope's sensor model costs the
// private answer (issue 77 item 5): the top-1 community accuracy of
// answers actually drawn by answer.Run — today's (no model on the scope:
// the query states --sensor-noise ν, readings outside the model refused,
// α = 1), the default model (budget --init --sensor-noise ν: nearest fit,
// calibrated at answer.CalibrationAlpha with the default drift allowance)
// and that model with an 8-bit ADC and one faulty sensor declared — on
// readings produced here with what each row's sensors do (Gaussian noise
// at ν; for the ADC row also rounded to mass/256 and one sensor, drawn
// uniformly whatever the source, stuck at 0). A refusal counts as wrong.
// Sources are drawn uniformly with a seed of their own (not plan's), and
// the readings, faults and counting are this program's: plan's forecast
// (the plan job's sensorTrials) is checked against it, not used by it.
// run.sh drives it; -table prints the table of docs/guarantee.md.
//
//	go run ./bench/modelutility --graph karate --epsilon 1,4 --sources 300 --draws 4
//	go run ./bench/modelutility --table .cache/modelutility karate gt:power
package main

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/graphcloak/graphcloak/answer"
	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/cputime"
	"github.com/graphcloak/graphcloak/job"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/recovery"
	flag "github.com/spf13/pflag"
)

// row is one line of the table: one graph, ε and configuration.
type row struct {
	Graph     string  `json:"graph"`
	Nodes     int     `json:"nodes"`
	Comms     int     `json:"communities"`
	Epsilon   float64 `json:"epsilon"`
	Config    string  `json:"config"`
	Alpha     float64 `json:"calibratedAlpha"`
	Sources   int     `json:"sources"`
	Answers   int     `json:"answers"`
	Right     int     `json:"right"`
	Refused   int     `json:"refused"`
	Rate      float64 `json:"rate"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	CPUSecond float64 `json:"cpuSeconds"`
}

// config is one way of answering, on readings its sensors produce.
type config struct {
	name       string
	plan       string // run.sh's plan file forecasting it ("": none)
	onMismatch string
	driftHops  int
	adc, stuck bool
}

var configs = []config{
	{name: "today (no model; refuse, α = 1)", plan: "today", onMismatch: answer.MismatchRefuse},
	{name: "one-hop allowance (ν, d = 1)", plan: "default", onMismatch: answer.MismatchNearest, driftHops: 1},
	{name: "d = 1 + 8-bit ADC + 1 faulty sensor", plan: "adc", onMismatch: answer.MismatchNearest, driftHops: 1, adc: true, stuck: true},
	{name: "default model (ν, d = any: randomized response)", plan: "any", onMismatch: answer.MismatchNearest, driftHops: privacy.DefaultDriftHops},
	{name: "default (any) + 8-bit ADC + 1 faulty sensor", plan: "anyadc", onMismatch: answer.MismatchNearest, driftHops: privacy.DefaultDriftHops, adc: true, stuck: true},
	{name: "today on the ADC + faulty readings", onMismatch: answer.MismatchRefuse, adc: true, stuck: true},
}

// noLedger charges nothing: the bench draws answers, it releases none.
type noLedger struct{}

func (noLedger) Charge(context.Context, privacy.Charge) error { return nil }
func (noLedger) Balance(context.Context, string) ([]privacy.Balance, error) {
	return nil, nil
}

func main() {
	spec := flag.String("graph", "karate", "graph: karate, gt:NAME, file:EDGES.csv")
	name := flag.String("name", "", "graph name for the table (default: the spec)")
	epss := flag.Float64Slice("epsilon", []float64{1, 4}, "ε values")
	tau := flag.Float64("tau", 1, "τ")
	nu := flag.Float64("nu", 0.005, "the sensors' Gaussian noise ν (rms of the mean reading)")
	mass := flag.Float64("mass", 1, "source mass μ (the ADC's full scale; its step is μ/256)")
	sources := flag.Int("sources", 300, "sources drawn uniformly")
	draws := flag.Int("draws", 4, "answers drawn per source (fresh readings noise each)")
	seed := flag.Uint64("seed", 7700, "seed of the sources, noise and faults (plan's is 1)")
	only := flag.IntSlice("configs", []int{0, 1, 2, 3, 4, 5}, "which configurations (indices)")
	table := flag.String("table", "", "print the table of the runs in this directory for the graphs named as arguments, and nothing else")
	flag.Parse()
	if *table != "" {
		printTable(*table, flag.Args())
		return
	}
	if *name == "" {
		*name = *spec
	}
	ctx := context.Background()
	g, _, err := job.CanonicalGraph(benchgraph.Load(*spec))
	if err != nil {
		log.Fatal(err)
	}
	part, err := community.Leiden(g, community.LeidenOptions{Resolution: 1, Seed: 1}) // plan's default partition
	if err != nil {
		log.Fatal(err)
	}
	m, err := answer.NewModel(ctx, g, *tau, part, nil, recovery.CertifierOptions{SensorNoise: *nu})
	if err != nil {
		log.Fatal(err)
	}
	act, err := expm.NewAction(g, *tau, expm.Options{Columns: *sources})
	if err != nil {
		log.Fatal(err)
	}
	b := bench{g: g, m: m, act: act, part: part, tau: *tau, nu: *nu, mass: *mass, sources: *sources, draws: *draws, seed: *seed}
	enc := json.NewEncoder(os.Stdout)
	for _, eps := range *epss {
		for _, i := range *only {
			if i < 0 || i >= len(configs) {
				log.Fatalf("no configuration %d", i)
			}
			r, err := b.measure(ctx, eps, configs[i])
			if err != nil {
				log.Fatal(err)
			}
			r.Graph, r.Nodes, r.Comms = *name, g.N(), m.Geometry.K()
			if err := enc.Encode(r); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// bench is one graph's model and the readings' parameters.
type bench struct {
	g              *laplacian.Graph
	m              *answer.Model
	act            expm.Action
	part           []int
	tau, nu, mass  float64
	sources, draws int
	seed           uint64
}

// measure draws b.draws answers for each of b.sources sources under c at
// ε, through answer.Run, and counts those naming the source's community.
func (b bench) measure(ctx context.Context, eps float64, c config) (row, error) {
	cpu := cputime.Process()
	cal, err := privacy.CalibrateAnswer(ctx, b.m.Geometry, eps, answer.CalibrationAlpha(1, c.driftHops), answer.CalibrationCap(0, c.driftHops))
	if err != nil {
		return row{}, err
	}
	audit, err := b.m.Audit(ctx, cal)
	if err != nil {
		return row{}, err
	}
	r := row{Epsilon: eps, Config: c.name, Alpha: cal.Alpha, Sources: b.sources}
	n := b.g.N()
	rng := rand.New(rand.NewPCG(b.seed, math.Float64bits(eps)))
	e, heat := make([]float64, n), make([]float64, n)
	for range b.sources {
		s := rng.IntN(n)
		clear(e)
		e[s] = 1
		b.act.Apply(heat, e, 1)
		for range b.draws {
			y := b.readings(heat, c, rng)
			res, err := answer.Run(ctx, answer.Request{Graph: b.g, Values: y, Tau: b.tau, Epsilon: eps, Alpha: 1, DriftHops: c.driftHops,
				Partition: b.part, SensorNoise: b.nu, OnMismatch: c.onMismatch, Model: b.m, Audited: audit, Calibrated: cal,
				Ledger: noLedger{}, Scope: "bench", Noise: privacy.CryptoNoise()})
			r.Answers++
			var mm *recovery.MismatchError
			switch {
			case err == nil && res.Community == strconv.Itoa(b.part[s]):
				r.Right++
			case errors.As(err, &mm):
				r.Refused++
			case err != nil:
				return row{}, err
			}
		}
	}
	r.Rate = float64(r.Right) / float64(r.Answers)
	// The answers of one source share its draw: the interval counts
	// sources, not answers (each source's share right is in [0, 1]).
	r.Low, r.High = forecast.Wilson(r.Rate*float64(b.sources), float64(b.sources), forecast.Z95)
	r.CPUSecond = cputime.Process() - cpu
	return r, nil
}

// readings are what c's sensors report for the unit diffusion heat at
// b.mass: Gaussian noise of rms ν·μ/n on every sensor, then for the ADC
// rows rounding to μ/256 and one sensor (uniform, whatever the source)
// stuck at 0.
func (b bench) readings(heat []float64, c config, rng *rand.Rand) []float64 {
	n := len(heat)
	y := make([]float64, n)
	sd := b.nu * b.mass / float64(n)
	for i := range y {
		y[i] = b.mass*heat[i] + sd*rng.NormFloat64()
	}
	if c.adc {
		q := b.mass / 256
		for i := range y {
			y[i] = math.Round(y[i]/q) * q
		}
	}
	if c.stuck {
		y[rng.IntN(n)] = 0
	}
	return y
}
