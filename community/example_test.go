package community_test

import (
	"fmt"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Rank a posterior over the karate club's nodes by faction.
func ExampleRank() {
	g, faction := laplacian.Karate()
	post := make([]float64, g.N())
	post[0], post[1], post[33] = 0.6, 0.2, 0.2 // members 1, 2 (Mr. Hi) and 34 (Officer)
	rep := community.Rank(g, faction, []string{"Mr. Hi", "Officer"}, post, false)
	for _, c := range rep.Communities {
		fmt.Printf("%d %s %.2f\n", c.Rank, c.Name, c.Share)
	}
	fmt.Println("90% of the mass on nodes", rep.Top90Nodes)
	// Output:
	// 1 Mr. Hi 0.80
	// 2 Officer 0.20
	// 90% of the mass on nodes [0 1 33]
}

// Louvain on a two-block SBM finds the blocks.
func ExampleLouvain() {
	g, planted, _ := laplacian.SBM([]int{50, 50}, 0.3, 0.01, 1)
	part, _ := community.Louvain(g, 1, 1)
	fmt.Printf("NMI with the planted blocks: %.2f\n", community.NMI(part, planted))
	// Output:
	// NMI with the planted blocks: 1.00
}
