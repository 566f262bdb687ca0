// Package experiment runs the paper's experiments on simulated data: the
// heat kernel on the unit interval (the paper's Figure 1 setting) and
// heat diffusion on a graph (the stochastic block model setting), each
// trial planting sources, adding calibrated Gaussian noise, recovering
// the sources and scoring the result (EMD on the line; right community
// and exact node on a graph).
//
// The graph experiment is the forecast's simulation (forecast.Simulate);
// this package holds what only the paper needs: the line experiment, the
// sensitivity sweep and the summaries of several graph experiments.
//
// Experiments are not releases. Their noise is drawn from a seeded
// math/rand/v2 PCG stream so that every number they report can be
// reproduced from the seed, and they never charge a privacy ledger; this
// is why they live apart from the release pipeline (package graphcloak),
// which draws its noise from crypto/rand or a keyed stream only.
package experiment
