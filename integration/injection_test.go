package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/graphcloak/graphcloak/connector"
)

// bookkeepingNodes is every bookkeeping node of the server (every label of
// bookkeeping) by element id, each as a checksum of its labels and
// properties; skip leaves out nodes whose scope is in it (the injection
// test's own scope, whose ledger its releases charge). With claims, an
// output-registry entry is checksummed by its property and kind only: a
// working run re-claims a property of its kind (runId, command and
// updatedAt move).
func bookkeepingNodes(t testing.TB, d neo4j.DriverWithContext, skip string, claims bool) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, r := range query(t, d, "MATCH (n:`"+strings.Join(bookkeeping, "`|`")+"`) WHERE n.scope IS NULL OR n.scope <> $skip "+
		"RETURN elementId(n), labels(n), properties(n)", map[string]any{"skip": skip}) {
		p := r.Values[2].(map[string]any)
		if claims && slices.Contains(r.Values[1].([]any), any(connector.OutputLabel)) {
			p = map[string]any{"property": p["property"], "kind": p["kind"]}
		}
		ks := make([]string, 0, len(p))
		for k := range p {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		h := sha256.New()
		fmt.Fprintf(h, "%v\n", r.Values[1])
		for _, k := range ks {
			fmt.Fprintf(h, "%q=%#v\n", k, p[k])
		}
		m[r.Values[0].(string)] = hex.EncodeToString(h.Sum(nil))[:16]
	}
	return m
}

// schemaTokens is the server's labels, relationship types and property
// keys, each prefixed by its kind.
func schemaTokens(t testing.TB, d neo4j.DriverWithContext) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, r := range query(t, d, "CALL db.labels() YIELD label RETURN 'label ' + label AS label "+
		"UNION CALL db.relationshipTypes() YIELD relationshipType RETURN 'type ' + relationshipType AS label "+
		"UNION CALL db.propertyKeys() YIELD propertyKey RETURN 'property ' + propertyKey AS label", nil) {
		m[r.Values[0].(string)] = true
	}
	return m
}

// injSlot is one name a command takes: the command's arguments with the
// name put in by put.
type injSlot struct {
	name string
	put  func(s string) []string
}

// TestInjectionCorpus passes every string of injectionCorpus as every
// name a command takes — labels, relationship types, weight, key, value,
// write, community, mass, probability and rank properties, --communities
// property:NAME — across load, communities, release, locate and
// projection save, against the real Neo4j. Each run is either refused
// with exit 2 or 3 or works with the name quoted exactly (the label,
// type or property carries exactly that name, and no other label, type or
// property key appears). In every case graphcloak's bookkeeping nodes
// (count and a checksum of each one's labels and properties) and the
// published properties of an earlier release (its values, run ids and a
// communities run's ids) are unchanged; the only bookkeeping a working
// run adds is its own run record, output-registry entries and its scope's
// charges.
//
// Cost: a name the identifier rule refuses is refused before connecting
// (milliseconds), so each of those is tried in every slot of every
// command, thousands of command lines run by cmd/graphcloak's runArgs in
// four processes (runCLIBatch) rather than by thousands of processes of
// the binary; a name it accepts reaches the server, so those are tried,
// by the binary, in groups: one load names its label, type, key and weight (its readings
// the next string), then communities, release and locate over that graph
// write into the following strings. Skipped with -short.
func TestInjectionCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the injection corpus runs the binary a few thousand times (-short)")
	}
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := connectedSBM(t, []int{10, 10}, 0.5, 0.1)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	t.Cleanup(func() {
		query(t, d, "MATCH (r:GraphcloakRun) WHERE r.scope = $p DETACH DELETE r", map[string]any{"p": e.scope})
	})
	runA := releaseJSON(t, e, e.releaseArgs("epoch-A"))["runId"].(string)
	if r := runCLI(t, s.Password, append(append([]string{"communities"}, e.projectionFlags()...), "--community-write-property", e.comm)...); r.Code != 0 {
		t.Fatalf("communities: exit %d: %s", r.Code, r.Stderr)
	}
	// The injected releases charge a scope of their own with room for
	// hundreds of releases.
	inj := "inj_" + e.scope
	conn := []string{"--uri", s.URI, "--user", s.User, "--database", "neo4j"}
	if r := runCLI(t, s.Password, append([]string{"budget", "--init", "--ledger", "neo4j", "--scope", inj,
		"--epsilon-total", "1e6", "--delta-total", "0.5"}, conn...)...); r.Code != 0 {
		t.Fatalf("budget --init %s: exit %d: %s", inj, r.Code, r.Stderr)
	}
	t.Cleanup(func() {
		query(t, d, "MATCH (n) WHERE (n:GraphcloakLedger OR n:GraphcloakCharge OR n:GraphcloakRun) AND n.scope = $s DETACH DELETE n", map[string]any{"s": inj})
	})

	dir := t.TempDir()
	edges, values := filepath.Join(dir, "edges.csv"), filepath.Join(dir, "values.csv")
	if err := os.WriteFile(edges, []byte("source,target,w\n1,2,1\n2,3,1.5\n3,4,1\n4,1,2\n1,3,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(values, []byte("node,value\n1,5\n2,6\n3,7\n4,30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	loadLabel, loadType := uniqueName(t, "InjL"), uniqueName(t, "InjT")
	t.Cleanup(func() { dropLabel(t, d, loadLabel) })
	published := func() string {
		return fmt.Sprint(nodeValues(t, d, f.Label, e.write), nodeValues(t, d, f.Label, e.write+"_runId"), nodeValues(t, d, f.Label, e.comm))
	}
	pubBefore := published()
	if strings.Count(pubBefore, ":") < 3*len(f.Keys) {
		t.Fatalf("the published properties are not all there: %.300s", pubBefore)
	}

	// The slots: every name of every command, the others valid.
	proj := func(label, typ, weight, key string) []string {
		return []string{"--graph", "neo4j", "--node-labels", label, "--relationship-types", typ,
			"--relationship-weight-property", weight, "--node-key-property", key}
	}
	var slots []injSlot
	addSlots := func(cmd string, base func(m map[string]string) []string, names ...string) {
		for _, n := range names {
			slots = append(slots, injSlot{cmd + " " + n, func(s string) []string {
				return base(map[string]string{n: s})
			}})
		}
	}
	pick := func(m map[string]string, k, def string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return def
	}
	projOf := func(m map[string]string) []string {
		return proj(pick(m, "--node-labels", f.Label), pick(m, "--relationship-types", f.RelType),
			pick(m, "--relationship-weight-property", "w"), pick(m, "--node-key-property", "key"))
	}
	projNames := []string{"--node-labels", "--relationship-types", "--relationship-weight-property", "--node-key-property"}
	addSlots("load", func(m map[string]string) []string {
		return append([]string{"load", "--edges", edges, "--values", values,
			"--node-labels", pick(m, "--node-labels", loadLabel), "--relationship-types", pick(m, "--relationship-types", loadType),
			"--node-key-property", pick(m, "--node-key-property", "k"), "--relationship-weight-property", pick(m, "--relationship-weight-property", "w"),
			"--value-property", pick(m, "--value-property", "v")}, conn...)
	}, append(projNames, "--value-property")...)
	addSlots("communities", func(m map[string]string) []string {
		a := append(append([]string{"communities"}, projOf(m)...), "--community-write-property", pick(m, "--community-write-property", e.comm+"x"))
		if c, ok := m["--communities"]; ok {
			a = append(a, "--communities", "property:"+c)
		}
		return append(a, conn...)
	}, append(projNames, "--community-write-property", "--communities")...)
	addSlots("release", func(m map[string]string) []string {
		return append(append(append([]string{"release"}, projOf(m)...), conn...), "--value-property", pick(m, "--value-property", "obs"),
			"--write-property", pick(m, "--write-property", e.write+"x"), "--tau", "0.5", "--epsilon", "1", "--delta", "1e-5",
			"--ledger", "neo4j", "--scope", inj, "--epsilon-total", "1e6", "--delta-total", "0.5", "--epoch", "inj-slot")
	}, append(projNames, "--value-property", "--write-property")...)
	addSlots("locate", func(m map[string]string) []string {
		return append(append(append([]string{"locate"}, projOf(m)...), conn...), "--released-property", pick(m, "--released-property", e.write),
			"--release-run", runA, "--communities", "property:"+pick(m, "--communities", "community"),
			"--mass-property", pick(m, "--mass-property", e.mass), "--community-write-property", pick(m, "--community-write-property", e.comm+"y"),
			"--probability-property", pick(m, "--probability-property", e.prob), "--rank-property", pick(m, "--rank-property", e.rank))
	}, append(projNames, "--released-property", "--communities", "--mass-property", "--community-write-property",
		"--probability-property", "--rank-property")...)
	addSlots("projection save", func(m map[string]string) []string {
		return append([]string{"--config", cfg, "projection", "save", "injected"}, proj(pick(m, "--node-labels", "L"),
			pick(m, "--relationship-types", "T"), pick(m, "--relationship-weight-property", "w"), pick(m, "--node-key-property", "k"))[2:]...)
	}, projNames...)

	corpus := injectionCorpus()
	var refused, reserved, accepted, argv []string
	for _, c := range corpus {
		switch {
		case c == "":
			// An empty value is a flag's default, not a name: below.
		case strings.ContainsRune(c, 0):
			argv = append(argv, c) // no process argument can hold a NUL
		case connector.CheckIdentifier("label", c) != nil:
			refused = append(refused, c)
		case strings.HasPrefix(c, connector.ReservedPrefix):
			// A reserved label or type; as a property name it is the
			// user's, and phase 2 writes it.
			reserved = append(reserved, c)
			accepted = append(accepted, c)
		default:
			accepted = append(accepted, c)
		}
	}
	t.Logf("corpus: %d strings; %d refused by the identifier rule, %d in the reserved namespace, %d more reach the server, %d hold a NUL",
		len(corpus), len(refused), len(reserved), len(accepted)-len(reserved), len(argv))
	for _, c := range argv {
		if connector.CheckIdentifier("property", c) == nil {
			t.Errorf("CheckIdentifier accepts %q (a NUL)", c)
		}
	}

	// Phase 1: the refused names in every slot.
	phaseStart := time.Now()
	type job struct {
		slot injSlot
		s    string
	}
	var mu sync.Mutex
	outcomes := map[string]int{}
	check := func(j job, r cliResult) {
		mu.Lock()
		defer mu.Unlock()
		outcomes[fmt.Sprintf("%s exit %d", j.slot.name, r.Code)]++
		if j.s == "" && (r.Code == 0 || r.Code == 6) {
			// An empty value is the flag's default (every label, every
			// type, elementId keys), not a name: it may work or find no
			// such data; the invariants below still hold.
			return
		}
		if r.Code != 2 && r.Code != 3 {
			t.Errorf("%s %q: exit %d (stdout %.200q, stderr %q); want exit 2 or 3", j.slot.name, j.s, r.Code, r.Stdout, firstLine(r.Stderr))
		}
	}
	// The empty value first, before the snapshot: it is each flag's
	// default (every label, every type, elementId keys, the command's own
	// property names), so it may work or find no such data (exit 6), and
	// a run that works updates the output registry as any run does. It must
	// not touch the published properties.
	for _, sl := range slots {
		check(job{sl, ""}, runCLI(t, s.Password, sl.put("")...))
	}
	if p := published(); p != pubBefore {
		t.Errorf("the empty value in every slot changed the published properties")
	}
	bkBefore, claimsBefore := bookkeepingNodes(t, d, inj, false), bookkeepingNodes(t, d, inj, true)
	nodes, rels := f.count(t, d)
	var jobs []job
	for _, c := range refused {
		for _, sl := range slots {
			jobs = append(jobs, job{sl, c})
		}
	}
	for _, c := range reserved {
		for _, sl := range slots {
			if strings.HasSuffix(sl.name, " --node-labels") || strings.HasSuffix(sl.name, " --relationship-types") {
				jobs = append(jobs, job{sl, c})
			}
		}
	}
	// In batches of command lines, each batch one process running the
	// binary's runArgs (runCLIBatch): refused before connecting, a run is
	// mostly the start of its process. Four batches at a time.
	var wg sync.WaitGroup
	const batches = 4
	for w := range batches {
		lo, hi := w*len(jobs)/batches, (w+1)*len(jobs)/batches
		wg.Add(1)
		go func() {
			defer wg.Done()
			argvs := make([][]string, 0, hi-lo)
			for _, j := range jobs[lo:hi] {
				argvs = append(argvs, j.slot.put(j.s))
			}
			for i, r := range runCLIBatch(t, s.Password, argvs) {
				check(jobs[lo+i], r)
			}
		}()
	}
	wg.Wait()
	t.Logf("phase 1: %d refused command lines in %.1f s", len(jobs), time.Since(phaseStart).Seconds())
	phaseStart = time.Now()
	tokens := schemaTokens(t, d)
	after := func(phase string, claims bool) {
		t.Helper()
		want := bkBefore
		if claims {
			want = claimsBefore
		}
		if got := bookkeepingNodes(t, d, inj, claims); len(got) < len(want) {
			t.Errorf("%s: %d bookkeeping nodes, %d before", phase, len(got), len(want))
		} else {
			for id, h := range want {
				if got[id] != h {
					t.Errorf("%s: bookkeeping node %s changed (checksum %s → %q)", phase, id, h, got[id])
				}
			}
		}
		if p := published(); p != pubBefore {
			t.Errorf("%s: the published properties changed", phase)
		}
		if n, r := f.count(t, d); n != nodes || r != rels {
			t.Errorf("%s: the user's graph has %d nodes, %d relationships; want %d, %d", phase, n, r, nodes, rels)
		}
	}
	after("refused names", false)
	if got := bookkeepingNodes(t, d, inj, false); len(got) != len(bkBefore) {
		t.Errorf("refused names: %d bookkeeping nodes, want %d (none added)", len(got), len(bkBefore))
	}
	if now := schemaTokens(t, d); len(now) != len(tokens) {
		t.Errorf("refused names added schema tokens")
	}

	// Phase 2: the accepted names, grouped. Every string is the label,
	// the relationship type and the weight of one load, and the graph of
	// the communities, release and locate runs after it. Every load runs
	// first and the labels are dropped last: a load creates a constraint,
	// which empties the server's query plan cache, so the runs between two
	// loads would plan every bookkeeping query again. The output
	// registry gives a node property one kind of values for good, so each
	// string takes one of the registered property roles in turn (node key,
	// readings, community ids, release values, mass, locate's community
	// ids, probability, rank; string i the role i mod 8) and the other
	// roles take fixed names of the test's own. Each working run must have
	// written exactly those names, and nothing else may appear in the
	// schema; a refusal is exit 2, 3 or 6 (a property the graph lacks).
	uniq := uniqueName(t, "")[1:]
	role := func(i, r int, def string) string {
		if i%8 == r {
			return accepted[i]
		}
		return def + uniq
	}
	worked := map[string]int{}
	tokensBefore := schemaTokens(t, d)
	allowed := map[string]bool{}
	names := func(i int) map[string]string {
		return map[string]string{"key": role(i, 0, "injK"), "value": role(i, 1, "injV"), "comm": role(i, 2, "injC"),
			"write": role(i, 3, "injW"), "mass": role(i, 4, "injM"), "lcomm": role(i, 5, "injL"), "prob": role(i, 6, "injP"), "rank": role(i, 7, "injR")}
	}
	// step records a command's outcome over string c; a working run must
	// have written exactly the names given (query q with params p counts
	// them; want).
	step := func(what, c string, p map[string]any, r cliResult, q string, want int64) bool {
		t.Helper()
		mu.Lock()
		outcomes[fmt.Sprintf("%s exit %d", what, r.Code)]++
		if r.Code == 0 {
			worked[what]++
		}
		mu.Unlock()
		switch r.Code {
		case 0:
			if got := query(t, d, q, p)[0].Values[0]; got != want {
				t.Errorf("%s over %q: exit 0 but %v where the names are quoted exactly (want %d): %s", what, c, got, want, q)
			}
			return true
		case 2, 3, 6: // usage, a refused name, or no such data
			mu.Lock()
			outcomes[what+" refused: "+firstLine(r.Stderr)[:min(60, len(firstLine(r.Stderr)))]]++
			mu.Unlock()
		default:
			t.Errorf("%s over %q: exit %d: %s", what, c, r.Code, firstLine(r.Stderr))
		}
		return false
	}
	// params are string i's names and the parameters of the queries that
	// count what its runs wrote; every name it gives is allowed in the schema.
	params := func(i int) (map[string]string, map[string]any) {
		c, names := accepted[i], names(i)
		p := map[string]any{"s": c}
		mu.Lock()
		defer mu.Unlock()
		allowed["label "+c], allowed["type "+c], allowed["property "+c] = true, true, true
		allowed["property "+names["write"]+"_runId"] = true
		for k, v := range names {
			p[k] = v
			allowed["property "+v] = true
		}
		return names, p
	}
	load := func(i int) bool {
		c := accepted[i]
		names, p := params(i)
		r := runCLI(t, s.Password, append([]string{"load", "--edges", edges, "--values", values, "--node-labels", c,
			"--relationship-types", c, "--node-key-property", names["key"], "--relationship-weight-property", c,
			"--value-property", names["value"]}, conn...)...)
		return step("load", c, p, r, "MATCH (n) WHERE $s IN labels(n) AND n[$key] IS NOT NULL AND n[$value] IS NOT NULL "+
			"MATCH (n)-[e]->() WHERE type(e) = $s AND e[$s] IS NOT NULL RETURN count(e)", 5)
	}
	// runs are the communities, release and locate runs on string i's
	// loaded graph.
	runs := func(i int) {
		c := accepted[i]
		names, p := params(i)
		pr := append(proj(c, c, c, names["key"]), conn...)
		step("communities", c, p, runCLI(t, s.Password, append(append([]string{"communities"}, pr...), "--community-write-property", names["comm"])...),
			"MATCH (n) WHERE $s IN labels(n) AND n[$comm] IS NOT NULL RETURN count(n)", 4)
		if i%2 == 0 || i%8 >= 3 { // release and locate for every other string and every string in their roles
			if step("release", c, p, runCLI(t, s.Password, append(append([]string{"release"}, pr...), "--value-property", names["value"],
				"--write-property", names["write"], "--tau", "0.5", "--epsilon", "1", "--delta", "1e-5", "--ledger", "neo4j",
				"--scope", inj, "--epoch", fmt.Sprintf("inj-%d", i))...),
				"MATCH (n) WHERE $s IN labels(n) AND n[$write] IS NOT NULL RETURN count(n)", 4) {
				step("locate", c, p, runCLI(t, s.Password, append(append([]string{"locate"}, pr...), "--released-property", names["write"], "--sigma", "1",
					"--communities", "louvain", "--mass-property", names["mass"], "--community-write-property", names["lcomm"],
					"--probability-property", names["prob"], "--rank-property", names["rank"])...),
					"MATCH (n) WHERE $s IN labels(n) AND n[$mass] IS NOT NULL AND n[$lcomm] IS NOT NULL AND n[$prob] IS NOT NULL AND n[$rank] IS NOT NULL RETURN count(n)", 4)
			}
		}
	}
	// The registry entries of the properties the groups wrote (on labels
	// dropped at the end) go too, so a second run on the same server finds
	// the names free again.
	t.Cleanup(func() {
		var props []string
		for tok := range allowed {
			if name, ok := strings.CutPrefix(tok, "property "); ok {
				props = append(props, name)
			}
		}
		query(t, d, "MATCH (o:GraphcloakOutput) WHERE o.property IN $p AND NOT elementId(o) IN $keep DELETE o",
			map[string]any{"p": props, "keep": slices.Collect(maps.Keys(bkBefore))})
	})
	// Three strings at a time (each its own label and type): every load,
	// then the runs on the graphs that loaded, then every label dropped.
	loaded := make([]bool, len(accepted))
	eachAccepted := func(do func(i int)) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					do(i)
				}
			}()
		}
		for i := range accepted {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	eachAccepted(func(i int) { loaded[i] = load(i) })
	loadsDone := time.Now()
	eachAccepted(func(i int) {
		if loaded[i] {
			runs(i)
		}
	})
	runsDone := time.Now()
	var drop []string
	for i, c := range accepted {
		if loaded[i] {
			drop = append(drop, c)
		}
	}
	dropLabel(t, d, drop...)
	t.Logf("phase 2: loads %.1f s, runs %.1f s, drops %.1f s", loadsDone.Sub(phaseStart).Seconds(),
		runsDone.Sub(loadsDone).Seconds(), time.Since(runsDone).Seconds())
	t.Logf("phase 2: %d accepted names in %.1f s", len(accepted), time.Since(phaseStart).Seconds())
	// Every label, type and property key the groups added is one of the
	// names they were given, exactly.
	for tok := range schemaTokens(t, d) {
		if !tokensBefore[tok] && !allowed[tok] {
			kind, name, _ := strings.Cut(tok, " ")
			t.Errorf("the runs over the accepted names added %s %q, which no name given was", kind, name)
		}
	}
	after("accepted names", true)
	keys := make([]string, 0, len(outcomes))
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d", k, outcomes[k])
	}
	t.Logf("worked over the %d accepted names: %v", len(accepted), worked)
	if worked["load"] < len(accepted)/2 || worked["communities"] < len(accepted)/2 || worked["locate"] < len(accepted)/4 {
		t.Errorf("only %v of %d accepted names worked: the corpus barely reached the server", worked, len(accepted))
	}
}
