// Package plotting draws the experiment figures with gonum/plot: the line
// experiment's true and recovered sources as stems (the paper's Figure 1)
// and a source-community report as bars of probability. Files are written
// in the format their extension names (.png, .svg, .pdf).
package plotting
