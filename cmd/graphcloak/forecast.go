package main

import (
	"github.com/graphcloak/graphcloak/internal/textreport"
	"github.com/graphcloak/graphcloak/job"
)

// sourceMassUsage is --source-mass's help, one text on locate, release
// and serve.
const sourceMassUsage = "total source mass (units) the readings carry, stated: the verdict's forecast simulates it " +
	"(0: locate estimates it from the release, with its 95% lower bound; a dry run and --refuse-at-chance judge by the forecast by source mass)"

// forecastRows adds the forecasts as table rows (textreport.ForecastRows).
func forecastRows(row func(string, any), fs *job.Forecasts) {
	textreport.ForecastRows(row, fs, flagName)
}
