package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// planRow is what the table reads of a plan's private-answer row.
type planRow struct {
	Epsilon float64 `json:"epsilon"`
	Rate    float64 `json:"communityAccuracy"`
	Low     float64 `json:"low"`
	High    float64 `json:"high"`
	Exact   bool    `json:"exact"`
	Trials  int     `json:"trials"`
}

// planFiles are the plan runs forecasting each configuration (by its
// index in modelutility's list): today's (no model), the one-hop
// allowance, with the ADC and a faulty sensor, and the same two under the
// default allowance (any).
var planFiles = map[int]string{0: "today", 1: "default", 2: "adc", 3: "any", 4: "anyadc"}

// printTable prints run.sh's table (markdown) from the files in out, for
// the graphs named: per graph, ε and way of answering, the answers drawn,
// how many named the source's community and were refused, the measured
// rate with its 95% interval (over sources), plan's forecast of it and
// the CPU seconds.
func printTable(out string, graphs []string) {
	fmt.Println("| graph | ε | answered by | calibrated α | answers (sources × draws) | right | refused | measured [95%] | plan's forecast [95%] | Δ (points) | CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range graphs {
		file := strings.NewReplacer(":", "-", "/", "-").Replace(name)
		rows := readMeasured(filepath.Join(out, file+".jsonl"))
		plans := map[string]map[float64]planRow{}
		for _, p := range planFiles {
			plans[p] = readPlan(filepath.Join(out, file+"."+p+".plan.json"))
		}
		for i, r := range rows {
			f, ok := plans[planFiles[i%len(configsPerEpsilon(rows))]][r.Epsilon]
			forecast, diff := "—", "—"
			if ok {
				forecast = fmt.Sprintf("%.3f [%.3f, %.3f]", f.Rate, f.Low, f.High)
				if f.Exact {
					forecast = fmt.Sprintf("%.3f (exact: audit)", f.Rate)
				}
				diff = fmt.Sprintf("%+.1f", 100*(f.Rate-r.Rate))
			}
			fmt.Printf("| %s (%d nodes, %d communities) | %g | %s | %g | %d (%d × %d) | %d | %d | %.3f [%.3f, %.3f] | %s | %s | %.1f |\n",
				r.Graph, r.Nodes, r.Comms, r.Epsilon, r.Config, r.Alpha, r.Answers, r.Sources, r.Answers/r.Sources, r.Right, r.Refused,
				r.Rate, r.Low, r.High, forecast, diff, r.CPUSecond)
		}
	}
}

// configsPerEpsilon is the configurations of the first ε (the rows come
// ε by ε, each with the same configurations).
func configsPerEpsilon(rows []row) []row {
	for i, r := range rows {
		if r.Epsilon != rows[0].Epsilon {
			return rows[:i]
		}
	}
	return rows
}

func readMeasured(path string) []row {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			log.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// readPlan is a plan's private-answer rows by ε (none when the file is
// missing: that forecast was not run).
func readPlan(path string) map[float64]planRow {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rep struct {
		Plan struct {
			Forecasts []planRow `json:"forecasts"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		log.Fatal(err)
	}
	rows := map[float64]planRow{}
	for _, f := range rep.Plan.Forecasts {
		rows[f.Epsilon] = f
	}
	return rows
}
