//go:build !race

package graphcloak

const simRaceEnabled = false
