// Command graphcloak releases diffusion measurements on a graph with
// differential privacy and recovers the likely source communities.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run())
}

// run executes the command line with a context cancelled by SIGINT or
// SIGTERM (commands then stop, record a failed run where they can and
// close the driver) and returns the exit code: 130 after a signal.
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRootCmd(os.Stdout, os.Stderr).ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "graphcloak: interrupted")
		return exitInterrupted
	}
	if err != nil {
		// The root package's errors already say "graphcloak: ".
		fmt.Fprintln(os.Stderr, "graphcloak: "+strings.TrimPrefix(err.Error(), "graphcloak: "))
	}
	return exitCode(err)
}
