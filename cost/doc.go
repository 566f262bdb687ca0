// Package cost is graphcloak's one home for "what will it cost": the
// modelled time of every long step of plan, release, locate, audit,
// sensitivity, experiment and load, and the estimates their --estimate
// flags and first lines print.
//
// Each step has one model, here, shared by the command's --estimate, the
// estimate line printed before the work, and the step's own line as it
// starts: Δ2 by the sensitivity package's cost model (priced on the
// 2-core reference machine), the answer audit by its cost model at this
// machine's measured step rate (answer.PassEstimate), simulated releases
// by a few trials timed on the graph or priced at the measured step rate
// (PerNodeTrialSeconds), a write at its reference rate. A command builds
// the inputs (Plan, Release, Locate), calls one function and prints what
// it returns; it models nothing itself, so its lines cannot disagree.
//
// Times are wall seconds (float64) on this machine with all its cores
// (runtime.GOMAXPROCS) unless a model says "reference machine".
package cost

// LineNodes is the size from which a command models its long steps for
// the line it prints before them (plan, sensitivity, the experiments, a
// release's Δ2 and its dry run, a localisation): below it the models' own
// cost (timing Δ2's bounds, measuring the step rate) is not worth it, and
// the work is short.
const LineNodes = 5000
