// Package graphcloak ties the pipeline together: pull a graph, build its
// heat-diffusion operator, compute the privacy sensitivity, release
// private per-node values, recover the sources and rank the source
// communities. The CLI in cmd/graphcloak and other Go programs call this API.
package graphcloak
