package forecast_test

import (
	"context"
	"fmt"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/laplacian"
)

// Private source localisation on the karate club, scored on its factions.
func ExampleSimulate() {
	g, factions := laplacian.Karate()
	res, err := forecast.Simulate(context.Background(), forecast.Simulation{
		Graph: g, Partition: factions, Tau: 1, Epsilon: 4, Delta: 0.1, Sources: 1, Trials: 100, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("communities:", res.Communities, "private:", res.Private)
	fmt.Println("faction found more often than by chance:", res.CommunityAccuracy > 0.5)
	// Output:
	// communities: 2 private: true
	// faction found more often than by chance: true
}
