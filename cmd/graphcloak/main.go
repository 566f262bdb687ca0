// Command graphcloak releases diffusion measurements on a graph with
// differential privacy and recovers the likely source communities.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRootCmd(os.Stdout, os.Stderr).ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphcloak:", err)
	}
	os.Exit(exitCode(err))
}
