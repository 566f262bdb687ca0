// Command soak runs graphcloak serve against a real Neo4j for many slots
// and reports whether the process stays flat: goroutines, open file
// descriptors, sockets and resident memory after the first slot and
// before the last (from /metrics and /proc), plus how the slots ended.
//
// It loads a random graph (default 5 000 nodes, 25 000 relationships,
// an observed value per node) under a fresh label, creates a ledger scope
// large enough for every slot, runs
//
//	graphcloak serve --schedule "@every 2s" --max-runs 200 …
//
// (release with a cached Δ2, then locate with Leiden, every slot), and
// deletes the graph, its run records and its scope afterwards. Usage: see
// bench/soak/run.sh, which starts the Neo4j test server itself.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func main() {
	bin := flag.String("bin", "", "graphcloak binary")
	nodes := flag.Int("nodes", 5000, "nodes")
	rels := flag.Int("rels", 25000, "relationships")
	runs := flag.Int("runs", 200, "slots to run")
	every := flag.String("every", "2s", "slot period")
	flag.Parse()
	if err := soak(*bin, *nodes, *rels, *runs, *every); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// sample is the process's state at one moment.
type sample struct {
	slots                          int
	goroutines, fds, rssMiB, socks float64
}

func soak(bin string, n, m, runs int, every string) error {
	uri, user, pw := os.Getenv("NEO4J_URI"), os.Getenv("NEO4J_USER"), os.Getenv("NEO4J_PASSWORD")
	if uri == "" || bin == "" {
		return fmt.Errorf("need -bin and NEO4J_URI (bench/soak/run.sh sets both)")
	}
	if user == "" {
		user = "neo4j"
	}
	ctx := context.Background()
	d, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth(user, pw, ""))
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	label := fmt.Sprintf("Soak_%d", time.Now().UnixNano())
	scope := "soak_" + label
	if err := load(ctx, d, label, n, m); err != nil {
		return err
	}
	defer cleanup(ctx, d, label, scope)
	env := append(os.Environ(), "GRAPHCLOAK_NEO4J_PASSWORD="+pw)
	conn := []string{"--uri", uri, "--user", user}
	init := exec.Command(bin, append([]string{"budget", "--init", "--ledger", "neo4j", "--scope", scope,
		"--epsilon-total", "100000", "--delta-total", "1e-3"}, conn...)...)
	init.Env = env
	if out, err := init.CombinedOutput(); err != nil {
		return fmt.Errorf("budget --init: %v: %s", err, out)
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"serve", "--schedule", "@every " + every, "--max-runs", strconv.Itoa(runs), "--listen", addr,
		"--log-format", "json", "--graph", "neo4j", "--node-labels", label, "--relationship-types", label + "_R",
		"--relationship-weight-property", "w", "--node-key-property", "key", "--value-property", "obs",
		"--write-property", "obsPrivate", "--ledger", "neo4j", "--scope", scope, "--epsilon", "1", "--delta", "1e-7",
		"--sensitivity-cache", filepath.Join(dir, "delta2.json")}, conn...)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	var first, last sample
	var final map[string]float64
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("serve: %v (log %s)", err, logf.Name())
			}
			waiting = false
			continue
		case <-time.After(500 * time.Millisecond):
		}
		met := scrape(addr)
		if met == nil {
			continue
		}
		final = met
		s := sampleOf(met, pid)
		if first.slots == 0 && s.slots >= 1 {
			first = s
		}
		if s.slots >= runs-1 && last.slots == 0 {
			last = s
		}
	}
	wall := time.Since(t0)
	fmt.Printf("serve --schedule \"@every %s\" --max-runs %d on %d nodes / %d relationships: %.0f s wall\n", every, runs, n, m, wall.Seconds())
	for _, k := range []string{"release", "locate"} {
		var parts []string
		for _, st := range []string{"succeeded", "failed", "refused", "interrupted"} {
			if v := final[`graphcloak_runs_total{command="`+k+`",status="`+st+`"}`]; v > 0 {
				parts = append(parts, fmt.Sprintf("%s %.0f", st, v))
			}
		}
		fmt.Printf("  %-8s %s; mean %.2f s\n", k, strings.Join(parts, ", "),
			final[`graphcloak_run_duration_seconds_sum{command="`+k+`"}`]/final[`graphcloak_run_duration_seconds_count{command="`+k+`"}`])
	}
	fmt.Printf("  slots skipped (previous run still going) %.0f; Δ2 reused %.0f times\n",
		final["graphcloak_slots_skipped_total"], final["graphcloak_sensitivity_reused_total"])
	fmt.Printf("  %-22s %10s %10s\n", "", "slot "+strconv.Itoa(first.slots), "slot "+strconv.Itoa(last.slots))
	for _, r := range []struct {
		name string
		a, b float64
	}{{"goroutines", first.goroutines, last.goroutines}, {"open fds", first.fds, last.fds},
		{"sockets", first.socks, last.socks}, {"resident memory (MiB)", first.rssMiB, last.rssMiB}} {
		fmt.Printf("  %-22s %10.0f %10.0f\n", r.name, r.a, r.b)
	}
	return nil
}

// sampleOf reads the process's state from its metrics and /proc.
func sampleOf(m map[string]float64, pid int) sample {
	s := sample{slots: int(m[`graphcloak_run_duration_seconds_count{command="locate"}`]),
		goroutines: m["go_goroutines"], fds: m["process_open_fds"], rssMiB: m["process_resident_memory_bytes"] / (1 << 20)}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		for _, e := range ents {
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
				s.socks++
			}
		}
	}
	return s
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$`)

func scrape(addr string) map[string]float64 {
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if g := sampleLine.FindStringSubmatch(sc.Text()); g != nil {
			if v, err := strconv.ParseFloat(g[2], 64); err == nil {
				m[g[1]] = v
			}
		}
	}
	return m
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// load creates n nodes (key, obs) and m random relationships (weight w).
func load(ctx context.Context, d neo4j.DriverWithContext, label string, n, m int) error {
	rng := rand.New(rand.NewPCG(7, 7))
	rows := make([]any, n)
	for i := range rows {
		rows[i] = map[string]any{"k": "n" + strconv.Itoa(i), "v": rng.Float64()}
	}
	if _, err := neo4j.ExecuteQuery(ctx, d, "UNWIND $rows AS r CREATE (:`"+label+"` {key: r.k, obs: r.v})",
		map[string]any{"rows": rows}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j")); err != nil {
		return err
	}
	if _, err := neo4j.ExecuteQuery(ctx, d, "CREATE INDEX soak_key IF NOT EXISTS FOR (n:`"+label+"`) ON (n.key)", nil,
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j")); err != nil {
		return err
	}
	edges := make([]any, 0, m)
	for len(edges) < m {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			edges = append(edges, map[string]any{"a": "n" + strconv.Itoa(a), "b": "n" + strconv.Itoa(b), "w": 0.5 + rng.Float64()})
		}
	}
	_, err := neo4j.ExecuteQuery(ctx, d, "UNWIND $rows AS r MATCH (a:`"+label+"` {key: r.a}) MATCH (b:`"+label+"` {key: r.b}) "+
		"CREATE (a)-[:`"+label+"_R` {w: r.w}]->(b)", map[string]any{"rows": edges},
		neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j"))
	return err
}

func cleanup(ctx context.Context, d neo4j.DriverWithContext, label, scope string) {
	for _, q := range []string{
		"MATCH (n:`" + label + "`) DETACH DELETE n",
		"MATCH (x:GraphcloakRun {scope: $s}) WITH collect(x.runId) AS ids MATCH (r) WHERE (r:GraphcloakRun OR r:GraphcloakReleaseValues) AND r.runId IN ids DETACH DELETE r",
		"MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge OR l:GraphcloakScopeLease) AND l.scope = $s DETACH DELETE l",
	} {
		if _, err := neo4j.ExecuteQuery(ctx, d, q, map[string]any{"s": scope}, neo4j.EagerResultTransformer,
			neo4j.ExecuteQueryWithDatabase("neo4j")); err != nil {
			fmt.Fprintln(os.Stderr, "soak: cleanup:", err)
		}
	}
}
