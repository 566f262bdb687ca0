// Command graphcloak releases diffusion measurements on a graph with
// differential privacy and recovers the likely source communities.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
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
	return runArgs(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// runArgs runs one command line and reports its error on stderr (see
// reportError) and returns the exit code.
func runArgs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && ctx.Err() != nil {
		err = errInterrupted
	}
	if err != nil {
		reportError(stderr, err, wantsJSON(root, args))
	}
	return exitCode(err)
}
