// Command neo4j benchmarks graphcloak's Neo4j connector against a real
// server: it loads a random graph (n nodes, m relationships with a weight,
// a community and an observed value per node) under a fresh label, then
// measures
//
//   - pull: connector.ReadGraph of the whole projection (nodes with key,
//     value and community, then relationships with weights), in
//     relationships per second;
//   - write-back: connector.WriteProperties of four properties per node
//     (released value, recovered mass, community id, community
//     probability), in node properties per second;
//   - peak memory of this process: the Go heap's high-water mark (sampled
//     runtime.MemStats) and the maximum resident set size (getrusage).
//
// The graph is deleted afterwards. Usage (a server from scripts/neo4j.sh):
//
//	eval "$(scripts/neo4j.sh start .neo4j/bench | tail -n1)"; export NEO4J_URI
//	NEO4J_PASSWORD=graphcloak-test go run ./bench/neo4j -nodes 100000 -rels 1000000
//	scripts/neo4j.sh stop .neo4j/bench
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/graphcloak/graphcloak/connector"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

type result struct {
	Nodes                 int       `json:"nodes"`
	Relationships         int       `json:"relationships"`
	LoadSeconds           float64   `json:"loadSeconds"`
	PullSeconds           float64   `json:"pullSeconds"` // the median of PullSecondsEach
	PullSecondsEach       []float64 `json:"pullSecondsEach"`
	ReadPath              string    `json:"readPath"`
	PullRelsPerSecond     float64   `json:"pullRelationshipsPerSecond"`
	WriteSeconds          float64   `json:"writeSeconds"`
	NodePropertiesWritten int       `json:"nodePropertiesWritten"`
	WritePropsPerSecond   float64   `json:"writeNodePropertiesPerSecond"`
	BatchSize             int       `json:"batchSize"`
	WriteConcurrency      int       `json:"writeConcurrency"`
	FetchSize             int       `json:"fetchSize"`
	PeakHeapMiB           float64   `json:"peakHeapMiB"`
	MaxRSSMiB             float64   `json:"maxRssMiB"`
}

func main() {
	nodes := flag.Int("nodes", 100_000, "number of nodes")
	rels := flag.Int("rels", 1_000_000, "number of relationships")
	batch := flag.Int("batch-size", connector.DefaultBatchSize, "write-back batch size (nodes per transaction)")
	fetch := flag.Int("fetch-size", 10_000, "records per Bolt PULL (negative: all at once)")
	conc := flag.Int("write-concurrency", 1, "write batches in parallel")
	seed := flag.Uint64("seed", 1, "random seed of the graph")
	keep := flag.Bool("keep", false, "keep the graph in the database (its label is printed)")
	reuse := flag.String("reuse", "", "measure a graph kept by an earlier -keep run (its label) instead of loading one")
	edgeList := flag.Bool("edge-list", false, "read the bare edge list (no weights, no node properties; element ids as keys) and skip the write-back")
	cypher := flag.Bool("cypher", false, "pull with Cypher queries even where the server has graphcloak's plugin (graphcloak.read)")
	pulls := flag.Int("pulls", 1, "pull this many times (the first warms the server's JIT); pullSeconds is the median")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the pull and write-back here")
	exec := flag.Bool("exec", false, "run the arguments as Cypher statements, one auto-commit transaction each, printing each one's seconds and first record (load.sh), and measure nothing else")
	flag.Parse()
	if *exec {
		if err := execStatements(flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "bench/neo4j:", err)
			os.Exit(1)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/neo4j:", err)
			os.Exit(1)
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if err := run(options{n: *nodes, m: *rels, batch: *batch, fetch: *fetch, conc: *conc, seed: *seed, keep: *keep,
		reuse: *reuse, cypher: *cypher, pulls: *pulls, edgeList: *edgeList}); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench/neo4j:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	n, m, batch, fetch, conc int
	seed                     uint64
	keep                     bool
	reuse                    string
	cypher                   bool
	pulls                    int
	edgeList                 bool
}

func run(o options) error {
	n, m, batch, fetch, conc, seed, keep, reuse, cypher, pulls := o.n, o.m, o.batch, o.fetch, o.conc, o.seed, o.keep, o.reuse, o.cypher, o.pulls
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		return fmt.Errorf("NEO4J_URI is not set (start a server with scripts/neo4j.sh start)")
	}
	user := os.Getenv("NEO4J_USER")
	if user == "" {
		user = "neo4j"
	}
	pw := os.Getenv("NEO4J_PASSWORD")
	ctx := context.Background()
	label := fmt.Sprintf("Bench_%d", time.Now().UnixNano())
	if reuse != "" {
		label, keep = reuse, true
	}
	relType := label + "_R"

	// Load with a plain driver (not part of the measurement).
	d, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth(user, pw, ""))
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	t0 := time.Now()
	res := result{Nodes: n, Relationships: m, BatchSize: batch, WriteConcurrency: conc, FetchSize: fetch}
	if reuse == "" {
		if !keep {
			defer drop(ctx, d, label)
		}
		if err := load(ctx, d, label, relType, n, m, seed); err != nil {
			return err
		}
		res.LoadSeconds = time.Since(t0).Seconds()
		fmt.Fprintf(os.Stderr, "loaded %d nodes, %d relationships in %.1f s (label %s)\n", n, m, res.LoadSeconds, label)
	}

	var peak atomic.Uint64
	stop := make(chan struct{})
	go sampleHeap(&peak, stop)

	c, err := connector.Connect(ctx, connector.Options{URI: uri, User: user, Password: pw, FetchSize: fetch})
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	p := connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{relType},
		RelationshipWeightProperty: "w", NodeKeyProperty: "key", CommunityProperty: "community", ValueProperty: "obs"}
	if o.edgeList {
		p = connector.Projection{NodeLabels: []string{label}, RelationshipTypes: []string{relType}}
	}
	var pulled *connector.Pulled
	for range max(pulls, 1) {
		runtime.GC()
		t0 = time.Now()
		stage := map[string]time.Duration{}
		pulled, err = c.ReadGraph(ctx, p, connector.ReadOptions{Cypher: cypher, Progress: func(s string, _ int) { stage[s] = time.Since(t0) }})
		if err != nil {
			return err
		}
		sec := time.Since(t0).Seconds()
		res.PullSecondsEach = append(res.PullSecondsEach, sec)
		fmt.Fprintf(os.Stderr, "pull (%s): %d nodes, %d relationships (%d edges) in %.2f s (nodes done at %.2f s, relationships at %.2f s)\n",
			pulled.Stats.ReadPath, pulled.Graph.N(), pulled.Stats.RelationshipCount, pulled.Graph.NumEdges(), sec,
			stage["nodes"].Seconds(), stage["relationships"].Seconds())
	}
	res.ReadPath = pulled.Stats.ReadPath
	sorted := slices.Sorted(slices.Values(res.PullSecondsEach))
	res.PullSeconds = sorted[len(sorted)/2]
	res.PullRelsPerSecond = float64(pulled.Stats.RelationshipCount) / res.PullSeconds
	if pulled.Graph.N() != n || pulled.Stats.RelationshipCount != m {
		return fmt.Errorf("pulled %d nodes %d relationships, loaded %d and %d", pulled.Graph.N(), pulled.Stats.RelationshipCount, n, m)
	}

	if o.edgeList {
		return report(res, &peak, stop)
	}
	rows := make([]connector.NodeProps, n)
	for i := range rows {
		rows[i] = connector.NodeProps{Key: pulled.Graph.Key(i), Props: map[string]any{
			"gcReleased": pulled.Values[i] + 0.1, "gcMass": 0.5, "gcCommunity": pulled.Communities[i], "gcCommunityProbability": 0.25,
		}}
	}
	t0 = time.Now()
	st, err := c.WriteProperties(ctx, p, rows, connector.WriteOptions{BatchSize: batch, Concurrency: conc})
	if err != nil {
		return err
	}
	res.WriteSeconds = time.Since(t0).Seconds()
	res.NodePropertiesWritten = st.NodePropertiesWritten
	res.WritePropsPerSecond = float64(st.NodePropertiesWritten) / res.WriteSeconds
	return report(res, &peak, stop)
}

// report stops the heap sampler and prints res with the peak memory.
func report(res result, peak *atomic.Uint64, stop chan struct{}) error {
	close(stop)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.PeakHeapMiB = float64(max(peak.Load(), ms.HeapAlloc)) / (1 << 20)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		res.MaxRSSMiB = float64(ru.Maxrss) / 1024 // Linux reports KiB
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// sampleHeap records the largest HeapAlloc seen every 20 ms.
func sampleHeap(peak *atomic.Uint64, stop <-chan struct{}) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	var ms runtime.MemStats
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	}
}

// load creates n nodes and m relationships between uniformly random
// distinct nodes, with weights in [0.5, 2), 100 communities and values in
// [0, 1).
func load(ctx context.Context, d neo4j.DriverWithContext, label, relType string, n, m int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 99))
	const batch = 50_000
	ids := make([]string, 0, n)
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		rows := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			rows = append(rows, map[string]any{"k": "n" + strconv.Itoa(i), "c": int64(i % 100), "v": rng.Float64()})
		}
		r, err := neo4j.ExecuteQuery(ctx, d, "UNWIND $rows AS r CREATE (n:`"+label+"` {key: r.k, community: r.c, obs: r.v}) RETURN elementId(n)",
			map[string]any{"rows": rows}, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j"))
		if err != nil {
			return err
		}
		for _, rec := range r.Records {
			ids = append(ids, rec.Values[0].(string))
		}
	}
	for lo := 0; lo < m; lo += batch {
		hi := min(lo+batch, m)
		rows := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			a := rng.IntN(n)
			b := rng.IntN(n - 1)
			if b >= a {
				b++
			}
			rows = append(rows, map[string]any{"a": ids[a], "b": ids[b], "w": 0.5 + 1.5*rng.Float64()})
		}
		_, err := neo4j.ExecuteQuery(ctx, d, "UNWIND $rows AS r MATCH (a) WHERE elementId(a) = r.a MATCH (b) WHERE elementId(b) = r.b "+
			"CREATE (a)-[:`"+relType+"` {w: r.w}]->(b)", map[string]any{"rows": rows},
			neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase("neo4j"))
		if err != nil {
			return err
		}
	}
	return nil
}

func drop(ctx context.Context, d neo4j.DriverWithContext, label string) {
	s := d.NewSession(ctx, neo4j.SessionConfig{DatabaseName: "neo4j"})
	defer s.Close(ctx)
	res, err := s.Run(ctx, "MATCH (n:`"+label+"`) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS", nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/neo4j: cleanup:", err)
	}
}
