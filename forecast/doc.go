// Package forecast tells how useful a release would be before it is made:
// it simulates releases on the graph at hand — sources planted at random
// nodes, diffused, noised with the σ a release at (ε, δ) would use,
// recovered and ranked — and reports how often the source's community
// comes first (Forecast), against a guess. Package job's forecasts come
// from here: a release's dry run and its refusal at chance
// (PerNode, AtMass), the verdict on a located release
// (EstimateMass, Judge), a private answer's (SimulateAnswer); so do the sweep
// over ε (EpsilonSweep) and the bound no mechanism at ε can beat (Ceiling,
// RoutedCeiling).
//
// Forecasts are not releases. Their noise is drawn from a seeded
// math/rand/v2 PCG stream (package internal/trials) so that every number
// they report can be reproduced from the seed, and they never charge a
// privacy ledger; this is why they live apart from the release pipeline
// (package graphcloak), which draws its noise from crypto/rand or a keyed
// stream only. The paper's experiments (package experiment) run on the
// same simulations.
package forecast
