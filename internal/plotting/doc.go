// Package plotting draws graphcloak's pictures: the graph with its
// communities and per-node values (GraphPicture; legend and caption
// generated from what is drawn), the line experiment's true and recovered
// sources (the paper's Figure 1), Δ2 on log-log axes (Figure 2), rates
// against ε or τ with their intervals, and a scope's top community over
// time. Files are written in the format their extension names (.png,
// .svg, .pdf), never half-written.
package plotting
