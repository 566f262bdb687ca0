package main

import (
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/job"
)

// A run record as a row: the runs listing and the operator page of serve
// show runs alike.

type runRow = job.RunRow

func runRowOf(r *connector.RunRecord, now time.Time) runRow { return job.RunRowOf(r, now) }
