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

// planOf is the plan file forecasting the configuration named (by
// configs' plan field; "" for none), so a run of some configurations
// (--configs) finds its forecasts.
func planOf(name string) string {
	for _, c := range configs {
		if c.name == name {
			return c.plan
		}
	}
	return ""
}

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
		for _, r := range rows {
			var f planRow
			ok := false
			if p := planOf(r.Config); p != "" {
				f, ok = readPlan(filepath.Join(out, file+"."+p+".plan.json"))[r.Epsilon]
			}
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
