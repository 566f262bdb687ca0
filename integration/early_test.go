package integration

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The injection corpus runs after the one-at-a-time tests (it is
// parallel), on a server of its own, with cmd/graphcloak's test binary:
// TestMain starts that server and builds that binary while the others
// run, so the corpus starts at once. corpusServer is ready when
// corpusReady is closed.
var (
	corpusEarly  bool // TestMain is starting the server
	corpusReady  = make(chan struct{})
	corpusServer *earlyServer
)

// earlyServer is a Neo4j started by scripts/neo4j.sh before any test.
type earlyServer struct {
	dir string
	srv server
	log string // what the start printed, for the test's log
	err error
}

// startCorpusEarly starts what TestInjectionCorpus needs when the run
// will reach it (a server given, not -short, -run matching it, a server
// of its own possible); the returned function stops that server.
func startCorpusEarly() (stop func()) {
	if !corpusWillRun() {
		close(corpusReady)
		return func() {}
	}
	go batchOnce.Do(buildArgvBatch)
	corpusEarly = true
	dir, err := os.MkdirTemp("", "graphcloak-corpus-neo4j-")
	if err != nil {
		corpusServer = &earlyServer{err: err}
		close(corpusReady)
		return func() {}
	}
	go func() {
		defer close(corpusReady)
		srv, log, err := startNeo4j(moduleRoot(), dir, "graphcloak-injection-test", nil)
		corpusServer = &earlyServer{dir: dir, srv: srv, log: log, err: err}
	}()
	return func() {
		<-corpusReady
		stopNeo4j(moduleRoot(), dir)
		os.RemoveAll(dir)
	}
}

func corpusWillRun() bool {
	if testing.Short() || os.Getenv("NEO4J_URI") == "" {
		return false
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		top, _, _ := strings.Cut(f.Value.String(), "/")
		if re, err := regexp.Compile(top); err != nil || !re.MatchString("TestInjectionCorpus") {
			return false
		}
	}
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		if re, err := regexp.Compile(f.Value.String()); err == nil && re.MatchString("TestInjectionCorpus") {
			return false
		}
	}
	return ownServerPossibleAt(moduleRoot())
}

// corpusOwnServer waits for the server TestMain started for the corpus.
func corpusOwnServer(t *testing.T) server {
	t.Helper()
	<-corpusReady
	if corpusServer.err != nil {
		t.Fatalf("the corpus's own Neo4j (%s): %v\n%s", filepath.Base(corpusServer.dir), corpusServer.err, corpusServer.log)
	}
	t.Logf("%s", corpusServer.log)
	return corpusServer.srv
}
