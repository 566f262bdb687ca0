// Command whisper makes the data of the whisper-network walkthrough
// (docs/whisper.md) from Zachary's karate club, built into graphcloak:
//
//	whisper edges             the social graph as an edge list (CSV
//	                          source,target: 78 friendships of 34 people),
//	                          for graphcloak load --edges -
//	whisper cypher            the same as Cypher: 34 (:Person {personId})
//	                          and 78 [:KNOWS] friendships
//	whisper exposure -hour H  the exposure score of every person at hour H
//	                          (CSV node,value: the personId and the score)
//
// A rumour is whispered by one member; what each person has heard of it an
// hour later is the heat-diffusion reading exp(−τL)·f0 at that person,
// with f0 the rumour's mass at its source (τ = 1; mass 100: the rumour was
// whispered 100 times). A release with α = 1 protects where any single
// whisper came from, up to one hop. Over the day the
// source changes: member 1's circle (Mr. Hi's faction) until 11:00, then
// member 34's (the Officer's faction) — what the walkthrough's history
// shows.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/graphcloak/graphcloak/expm"
	"github.com/graphcloak/graphcloak/laplacian"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: whisper edges | whisper cypher | whisper exposure -hour H")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "edges":
		printEdges()
	case "cypher":
		err = printCypher()
	case "exposure":
		fs := flag.NewFlagSet("exposure", flag.ExitOnError)
		hour := fs.Int("hour", 0, "hour of the day, 0–23")
		tau := fs.Float64("tau", 1, "diffusion time τ of the exposure")
		mass := fs.Float64("mass", 100, "how many times the rumour was whispered at its source")
		_ = fs.Parse(os.Args[2:])
		err = printExposure(*hour, *tau, *mass)
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "whisper:", err)
		os.Exit(1)
	}
}

// printEdges prints the club's friendships as CSV source,target.
func printEdges() {
	g, _ := laplacian.Karate()
	fmt.Println("source,target")
	for i := 0; i < g.N(); i++ {
		cols, _ := g.Neighbors(i)
		for _, j := range cols {
			if int(j) > i {
				fmt.Printf("%s,%s\n", g.Key(i), g.Key(int(j)))
			}
		}
	}
}

// printCypher prints one statement that creates the club.
func printCypher() error {
	g, _ := laplacian.Karate()
	fmt.Println("// Zachary's karate club (1977) as a social graph: 34 people, 78 friendships.")
	fmt.Print("UNWIND range(1, 34) AS i CREATE (:Person {personId: toString(i)})\nWITH count(*) AS people\nUNWIND [")
	sep := ""
	for i := 0; i < g.N(); i++ {
		cols, _ := g.Neighbors(i)
		for _, j := range cols {
			if int(j) > i {
				fmt.Printf("%s[%q, %q]", sep, g.Key(i), g.Key(int(j)))
				sep = ", "
			}
		}
	}
	fmt.Println("] AS e\nMATCH (a:Person {personId: e[0]}), (b:Person {personId: e[1]})\nCREATE (a)-[:KNOWS]->(b);")
	return nil
}

// printExposure prints exp(−τL)·(mass·e_source) for the hour's source.
func printExposure(hour int, tau, mass float64) error {
	if hour < 0 || hour > 23 {
		return fmt.Errorf("-hour must be 0–23, got %d", hour)
	}
	g, _ := laplacian.Karate()
	source := "1" // Mr. Hi's circle in the morning …
	if hour >= 12 {
		source = "34" // … the Officer's in the afternoon
	}
	s, _ := g.IndexOf(source)
	act, err := expm.NewAction(g, tau, expm.Options{})
	if err != nil {
		return err
	}
	f0 := make([]float64, g.N())
	f0[s] = mass
	y := make([]float64, g.N())
	act.Apply(y, f0, 1)
	fmt.Println("node,value")
	for i, v := range y {
		fmt.Printf("%s,%.6f\n", g.Key(i), v)
	}
	return nil
}
