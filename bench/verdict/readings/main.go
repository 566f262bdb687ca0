// Command readings writes the noiseless readings of planted sources for
// bench/verdict/cli.sh: for each of -sources sources, a node drawn
// uniformly (PCG seeded by -seed) carrying -mass units, the readings
// exp(−τL)·(mass·e_s) at every node, as the CSV node,value that release
// --values reads (DIR/rK.csv), and DIR/sources.csv (k,node) naming each
// source:
//
//	go run ./bench/verdict/readings -graph gt:power -tau 1 -mass 10 -sources 30 -out DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/bench/internal/benchgraph"
	"github.com/graphcloak/graphcloak/expm"
)

func main() {
	spec := flag.String("graph", "gt:power", "graph: gt:NAME, file:PATH or a generator spec")
	tau := flag.Float64("tau", 1, "τ of the diffusion")
	mass := flag.Float64("mass", 10, "units at each source")
	sources := flag.Int("sources", 30, "sources, one readings file each")
	seed := flag.Uint64("seed", 73, "seed of the sources' nodes")
	out := flag.String("out", "", "directory to write rK.csv and sources.csv to")
	flag.Parse()
	if *out == "" {
		log.Fatal("give -out DIR")
	}
	g := benchgraph.Load(*spec)
	n := g.N()
	act, err := expm.NewAction(g, *tau, expm.Options{Method: expm.Sparse})
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	var list strings.Builder
	list.WriteString("k,node\n")
	f0, y := make([]float64, n), make([]float64, n)
	for k := range *sources {
		src := rng.IntN(n)
		clear(f0)
		f0[src] = *mass
		act.Apply(y, f0, 1)
		var b strings.Builder
		for i, v := range y {
			b.WriteString(g.Key(i))
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(v, 'g', 17, 64))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("r%d.csv", k)), []byte(b.String()), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(&list, "%d,%s\n", k, g.Key(src))
	}
	if err := os.WriteFile(filepath.Join(*out, "sources.csv"), []byte(list.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}
