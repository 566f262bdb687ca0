package main

import "github.com/graphcloak/graphcloak/internal/peakmem"

// processPeakBytes is the process's peak resident memory so far
// (peakmem.Bytes), which a dry run adds to the computation's modelled
// bytes.
func processPeakBytes() int64 { return peakmem.Bytes() }
