package graphcloak

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/graphcloak/graphcloak"

// deps returns every package the module package at dir imports (test files
// excluded): directly, or also through other packages of this module when
// transitive is set.
func deps(t *testing.T, dir string, transitive bool) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var walk func(dir string)
	walk = func(dir string) {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range p.Imports {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok && transitive {
				walk(filepath.FromSlash(rel))
			}
		}
	}
	walk(dir)
	return seen
}

// The import rules of docs/architecture.md: the release pipeline never
// touches the simulations' seeded RNG, jobs forecast with package forecast
// and never import the paper's experiments, the numerical packages never
// depend on Neo4j or on the configuration layer, sensitivity and privacy
// do not import each other, and only the command and the service import
// stores (what a job runs against, opened once).
func TestImportRules(t *testing.T) {
	forbidden := func(prefixes ...string) func(string) bool {
		return func(imp string) bool {
			for _, p := range prefixes {
				if imp == p || strings.HasPrefix(imp, p+"/") {
					return true
				}
			}
			return false
		}
	}
	// onlyStdlib allows the standard library and the given module or
	// x/ packages (prefixes) and nothing else.
	onlyStdlib := func(allowed ...string) func(string) bool {
		return func(imp string) bool {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") {
				return false // standard library
			}
			for _, p := range allowed {
				if imp == p || strings.HasPrefix(imp, p+"/") {
					return false
				}
			}
			return true
		}
	}
	noDB := forbidden(modulePath+"/connector", "github.com/neo4j/neo4j-go-driver", "github.com/spf13/viper", modulePath+"/config")
	// onlyModule allows, of this module's packages, the given ones only
	// (exactly; other modules and the standard library are not checked).
	onlyModule := func(allowed ...string) func(string) bool {
		return func(imp string) bool {
			if imp != modulePath && !strings.HasPrefix(imp, modulePath+"/") {
				return false
			}
			for _, a := range allowed {
				if imp == modulePath+a {
					return false
				}
			}
			return true
		}
	}
	rules := []struct {
		dir        string
		transitive bool
		bad        func(string) bool
		why        string
	}{
		// Direct imports only: graph generators elsewhere use a seeded RNG
		// for graphs, never for noise.
		{".", false, forbidden("math/rand", "math/rand/v2", modulePath+"/experiment", modulePath+"/forecast", modulePath+"/internal/trials"), "releases draw noise from crypto/rand or the keyed stream only"},
		// The root is the library's API (release, locate, estimate): the
		// private answer and the demo build on it, never the other way round.
		{".", true, forbidden(modulePath+"/answer", modulePath+"/internal/demo", modulePath+"/job", modulePath+"/stores", modulePath+"/service"), "the root package is the pipeline's API: answer, demo, jobs and stores build on it"},
		{"laplacian", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		{"expm", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		{"privacy", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		{"sensitivity", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		// The Δ2 engine and the mechanisms meet only in their callers:
		// mechanisms take Δ2 as a number, certificates take MAC key bytes.
		{"sensitivity", true, forbidden(modulePath + "/privacy"), "the Δ2 engine does not depend on the mechanisms or the ledger"},
		{"privacy", true, forbidden(modulePath + "/sensitivity"), "mechanisms take Δ2 as a number, not from the Δ2 engine"},
		{"recovery", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		{"community", true, noDB, "numerical packages are independent of Neo4j and configuration"},
		// The private answer computes on a loaded graph with what the root
		// used for it (and the root's parameter checks), nothing else.
		{"answer", true, noDB, "the private answer computes on a loaded graph, independent of Neo4j and configuration"},
		{"answer", false, forbidden("math/rand", "math/rand/v2"), "the private answer draws its community from crypto/rand only"},
		{"answer", false, onlyModule("", "/community", "/errkind", "/expm", "/internal/atomicfile", "/internal/jsonmac", "/laplacian", "/privacy", "/recovery"), "the private answer imports what the root imported for it, nothing else"},
		{"internal/demo", true, noDB, "the demo runs on an embedded graph only"},
		{"experiment", true, noDB, "experiments run on simulated data only"},
		{"forecast", true, noDB, "forecasts run on simulated data only"},
		// The paper's experiments build on the forecasts, never the other
		// way round: what a release forecasts does not depend on them.
		{"forecast", true, forbidden(modulePath + "/experiment"), "the forecasts do not depend on the paper's experiments"},
		{"job", true, forbidden(modulePath + "/experiment"), "a release forecasts with package forecast, not the paper's experiments"},
		// The cost models price the work on a loaded graph: the commands
		// and jobs read them, never the other way round.
		{"cost", true, noDB, "the cost models price work on a loaded graph, independent of Neo4j and configuration"},
		{"cost", true, forbidden(modulePath+"/job", modulePath+"/stores", modulePath+"/service", modulePath+"/experiment"), "the cost models are read by the jobs and the commands, and read neither"},
		// Direct imports: job reaches Neo4j only through the Backend it is
		// given, so its tests run on the in-memory one (jobtest.Memory).
		{"job", false, forbidden(modulePath+"/stores", modulePath+"/config", "github.com/spf13/viper", "github.com/neo4j/neo4j-go-driver"), "a release's logic takes its backend as an argument"},
		{"service", false, forbidden(modulePath+"/config", "github.com/spf13/viper", "github.com/neo4j/neo4j-go-driver"), "serve's library takes its steps' specs and opened stores as arguments"},
		{"internal/textreport", false, forbidden(modulePath+"/stores", modulePath+"/connector", modulePath+"/config", "github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/neo4j/neo4j-go-driver"), "text reports render finished reports; they open nothing and read no flags"},
		{"stores", true, forbidden(modulePath + "/cmd"), "the stores are opened for the command, never by it"},
		// A job's input files are read before anything is opened: by the
		// command and the stores (the service is handed the readings'
		// reader), never through them.
		{"internal/inputfiles", false, forbidden(modulePath+"/stores", modulePath+"/service", modulePath+"/job", modulePath+"/answer", modulePath+"/sensitivity", modulePath+"/sensor", "github.com/neo4j/neo4j-go-driver", "github.com/spf13/viper", "github.com/spf13/cobra", "github.com/spf13/pflag"), "a job's input files are read before anything is opened, with no command line; what they read, not the jobs that take them"},
		{"internal/jobfiles", false, forbidden(modulePath+"/stores", modulePath+"/service", modulePath+"/sensor", "github.com/neo4j/neo4j-go-driver", "github.com/spf13/viper", "github.com/spf13/cobra", "github.com/spf13/pflag"), "a job's keys and files are read before anything is opened, with no command line"},
		{"internal/sensorfiles", false, forbidden(modulePath+"/stores", modulePath+"/service", modulePath+"/job", modulePath+"/config", "github.com/neo4j/neo4j-go-driver", "github.com/spf13/viper", "github.com/spf13/cobra", "github.com/spf13/pflag"), "a sensor's files are read with no command line, configuration or job"},
		// The coordinator's and collector's side of a local release holds
		// noisy values and MAC keys only: no database, no configuration,
		// no command line, no raw readings path (job, stores).
		{"local", true, forbidden(modulePath+"/connector", "github.com/neo4j/neo4j-go-driver", "github.com/spf13/viper", modulePath+"/config", modulePath+"/job", modulePath+"/stores", "github.com/spf13/cobra", "github.com/spf13/pflag"), "the collector stores noisy values only and takes its stores as arguments"},
		// Sensors are small: their noise and protocol build with the
		// standard library and x/crypto only.
		{"keyednoise", true, onlyStdlib("golang.org/x/crypto"), "the keyed sampler builds with the standard library and x/crypto only"},
		{"sensor", true, onlyStdlib("golang.org/x/crypto", modulePath+"/keyednoise"), "a sensor builds with the standard library, x/crypto and keyednoise only"},
	}
	for _, r := range rules {
		for imp := range deps(t, r.dir, r.transitive) {
			if r.bad(imp) {
				t.Errorf("package %s depends on %s: %s", r.dir, imp, r.why)
			}
		}
	}
	// Only the command and the service open stores: every other package
	// takes what it runs against as arguments (job its Backend and
	// ledger), so its tests run without a database.
	storesUsers := map[string]bool{"cmd/graphcloak": true, "service": true}
	// The local release runs on the stores and in the service, as the
	// central one does (the command names its results and provisions
	// sensors, TestCommandCallsNoLocalStep).
	localUsers := map[string]bool{"stores": true, "service": true, "cmd/graphcloak": true}
	for _, dir := range moduleDirs(t) {
		imports := deps(t, dir, false)
		if !storesUsers[dir] && dir != "stores" && imports[modulePath+"/stores"] {
			t.Errorf("package %s imports stores: only cmd/graphcloak and service open the stores", dir)
		}
		if !localUsers[dir] && imports[modulePath+"/local"] {
			t.Errorf("package %s imports local: the local release runs on the stores (Stores.OpenEpoch, Stores.Collect) and in the service (service.Epochs)", dir)
		}
		// The command is the top: nothing imports it.
		for imp := range imports {
			if imp == modulePath+"/cmd" || strings.HasPrefix(imp, modulePath+"/cmd/") {
				t.Errorf("package %s imports %s: nothing imports the command", dir, imp)
			}
		}
		// The in-memory backend is a stand-in for tests: what runs for
		// real publishes to Neo4j.
		if imports[modulePath+"/job/jobtest"] {
			t.Errorf("package %s imports job/jobtest: only tests run against the in-memory backend", dir)
		}
	}
}

// moduleDirs lists the directories of this module that hold a Go package
// (test-only packages and testdata excluded), slash-separated.
func moduleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := build.ImportDir(path, 0); err == nil {
			dirs = append(dirs, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// libraryFlag matches a command-line flag ("--epoch") or an exit code in a
// string: what only the command knows.
var libraryFlag = regexp.MustCompile(`(^|[^-\w])--[a-z]|(?i)\bexit (code|status)\b`)

// TestLibrarySpeaksItsOwnLanguage: the library packages' errors and logs
// name parameters (errkind.Param), never the command's flags or exit
// codes; cmd/graphcloak maps parameters to flags (flagnames.go) and kinds
// to exit codes (exitcodes.go).
func TestLibrarySpeaksItsOwnLanguage(t *testing.T) {
	for _, dir := range []string{".", "answer", "internal/demo", "job", "job/jobtest", "service", "privacy", "sensitivity", "stores", "forecast", "experiment", "internal/textreport", "community", "recovery", "laplacian", "expm", "connector", "internal/sourceview", "internal/progressbar", "schedule", "metrics", "datasets", "internal/csvin", "internal/inputfiles", "internal/jobfiles", "internal/sensorfiles", "internal/atomicfile", "internal/trials", "cost"} {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && libraryFlag.MatchString(lit.Value) {
					t.Errorf("%s: %s names a command-line flag or exit code: name the parameter (errkind.Param) and let cmd map it", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
	}
}

// maxCmdFuncLines is the longest a function of cmd/graphcloak may be,
// from its func keyword to its closing brace: a command builds its
// options, calls the library and prints (STYLE.md); what is longer is
// library work or several steps that want names (issue 72).
const maxCmdFuncLines = 60

// longCmdFuncsPending are the cmd functions over maxCmdFuncLines that
// other work of issue 72 moves out of cmd (the local epochs into stores
// and service, the cost models into one package). The list only
// shrinks: the lead empties it once that work is merged, and an entry
// that is no longer long fails the test.
var longCmdFuncsPending = map[string]bool{}

// TestCmdFunctionsAreShort: no function of cmd/graphcloak (test files
// aside) is longer than maxCmdFuncLines.
func TestCmdFunctionsAreShort(t *testing.T) {
	dir := "cmd/graphcloak"
	p, err := build.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	long := map[string]bool{}
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines <= maxCmdFuncLines {
				continue
			}
			long[fn.Name.Name] = true
			if !longCmdFuncsPending[fn.Name.Name] {
				t.Errorf("%s: %s is %d lines (at most %d): move the work into the library or split it into named steps",
					fset.Position(fn.Pos()), fn.Name.Name, lines, maxCmdFuncLines)
			}
		}
	}
	for name := range longCmdFuncsPending {
		if !long[name] {
			t.Errorf("%s is no longer over %d lines in %s: remove it from longCmdFuncsPending", name, maxCmdFuncLines, dir)
		}
	}
}

// jobFilesPending are cmd files named for a job that other work of issue
// 72 moves out of cmd (epoch opening into stores); the lead empties the
// list once it is merged.
var jobFilesPending = map[string]bool{}

// TestJobHasOneMeaning: "job" means package job — one release,
// localisation or private answer as a spec planned and executed against
// stores, with its run and state (docs/architecture.md). No exported name
// outside package job says Job (a root input is a …Request, a scheduled
// function a schedule.SlotFunc), and no file outside job/ is named
// …job.go (cmd's are named for the spec they build: releasespec.go).
func TestJobHasOneMeaning(t *testing.T) {
	jobWord := regexp.MustCompile(`Job`)
	for path := range jobFilesPending {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s is gone: remove it from jobFilesPending", path)
		}
	}
	for _, dir := range moduleDirs(t) {
		if dir == "job" || strings.HasPrefix(dir, "job/") {
			continue
		}
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			path := filepath.ToSlash(filepath.Join(dir, name))
			if strings.HasSuffix(name, "job.go") && !jobFilesPending[path] {
				t.Errorf("%s: a file named for a job outside package job: name it for what it holds (releasespec.go: flags → job.ReleaseSpec)", path)
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range declaredNames(f) {
				if id.IsExported() && jobWord.MatchString(id.Name) && !jobFilesPending[path] {
					t.Errorf("%s: %s: \"Job\" means package job; name a request, a function or a spec for what it is", fset.Position(id.Pos()), id.Name)
				}
			}
		}
	}
}

// declaredNames are the names f declares: functions and methods, types,
// constants and variables, struct fields and interface methods.
func declaredNames(f *ast.File) []*ast.Ident {
	var ids []*ast.Ident
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			ids = append(ids, n.Name)
		case *ast.TypeSpec:
			ids = append(ids, n.Name)
		case *ast.ValueSpec:
			ids = append(ids, n.Names...)
		case *ast.Field:
			ids = append(ids, n.Names...)
		}
		return true
	})
	return ids
}

// tableNames returns the backquoted names in the first column of the
// markdown table in file whose header row begins with header.
func tableNames(t *testing.T, file, header string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n"+header)
	if !ok {
		t.Fatalf("%s: no table headed %q", file, header)
	}
	var names []string
	for _, row := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(row, "|") {
			break
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(row, "|"), "|")
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestPackageTablesComplete: every package of the module has its row in
// docs/architecture.md's package table (a name ending "/…" stands for the
// packages under it), and every top-level folder holding one its row in
// README's layout table.
func TestPackageTablesComplete(t *testing.T) {
	arch := tableNames(t, "docs/architecture.md", "| package | responsibility |")
	readme := tableNames(t, "README.md", "| folder | responsibility |")
	covered := func(names []string, dir string) bool {
		for _, n := range names {
			if n == dir || strings.HasSuffix(n, "/…") && strings.HasPrefix(dir, strings.TrimSuffix(n, "…")) {
				return true
			}
		}
		return false
	}
	missing := map[string]bool{}
	for _, dir := range moduleDirs(t) {
		if dir == "." {
			continue // the module root has its row in both
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			continue // a module of its own (integration/testcontainers)
		}
		if !covered(arch, dir) {
			t.Errorf("package %s has no row in docs/architecture.md's package table", dir)
		}
		top, _, _ := strings.Cut(dir, "/")
		if !missing[top] && !slices.ContainsFunc(readme, func(n string) bool { return strings.HasPrefix(n, top+"/") }) {
			missing[top] = true
			t.Errorf("folder %s/ has no row in README.md's layout table", top)
		}
	}
}

// TestOnlyStoresConnect: one Neo4j driver per process (DESIGN.md) — the
// program's packages never open a driver themselves: the connector opens
// it (connector.Connect, the one call of neo4j.NewDriverWithContext) and
// only the stores call Connect (stores.Open, TestOneConnectionPerStores),
// so a command or the service reaches Neo4j through the stores it opened
// once. The benchmarks under bench/ are programs of their own.
func TestOnlyStoresConnect(t *testing.T) {
	allowed := map[string]string{"connector.Connect": "stores", "neo4j.NewDriverWithContext": "connector"}
	for _, dir := range moduleDirs(t) {
		if dir == "bench" || strings.HasPrefix(dir, "bench/") {
			continue
		}
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				if home, ok := allowed[x.Name+"."+sel.Sel.Name]; ok && dir != home {
					t.Errorf("%s: %s.%s outside %s: open the stores (stores.Open) and use their connection", fset.Position(sel.Pos()), x.Name, sel.Sel.Name, home)
				}
				return true
			})
		}
	}
}

// TestCommandCallsNoLocalStep: the local release has the central
// release's doors (docs/architecture.md, "One door per job"): its steps —
// opening an epoch, collecting and closing it, publishing it — are called
// by the stores (Stores.OpenEpoch, Stores.Collect, Stores.PublishCollected)
// and the service (service.Epochs, service.Collector), never by the
// command, as TestOnlyStoresConnect keeps the command from connecting to
// Neo4j. cmd may name local's constants, variables and result types, and
// call Provision (keygen's: it opens no epoch); no other function of
// local, nor the running collector's types.
func TestCommandCallsNoLocalStep(t *testing.T) {
	p, err := build.ImportDir("local", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]bool{}
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join("local", name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() {
				funcs[fn.Name.Name] = true
			}
		}
	}
	if len(funcs) == 0 {
		t.Fatal("no exported function in local: the test reads the wrong package")
	}
	allowed := map[string]bool{"Provision": true}
	runners := map[string]bool{"Collector": true, "CollectorOptions": true, "Handler": true, "Current": true, "OpenRequest": true}
	cmd, err := build.ImportDir("cmd/graphcloak", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cmd.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join("cmd/graphcloak", name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "local" {
				return true
			}
			if s := sel.Sel.Name; funcs[s] && !allowed[s] || runners[s] {
				t.Errorf("%s: local.%s in the command: open an epoch, collect and publish through the stores (Stores.OpenEpoch, Stores.Collect, Stores.PublishCollected) or the service (service.Epochs, service.Collector)", fset.Position(sel.Pos()), s)
			}
			return true
		})
	}
}

// maxJobFreeFunctions bounds package job's exported free functions (issue
// 72: 39 when the cost models lived there; 26 once they moved to cost).
const maxJobFreeFunctions = 26

// TestJobStaysSmall: package job is the release's, the localisation's and
// the plan's steps, not a home for helpers — its exported free functions
// (go/ast: top-level funcs without a receiver, non-test files) stay at
// most maxJobFreeFunctions. A cost model belongs in package cost.
func TestJobStaysSmall(t *testing.T) {
	p, err := build.ImportDir("job", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join("job", name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				names = append(names, fd.Name.Name)
			}
		}
	}
	t.Logf("package job: %d exported free functions (at most %d)", len(names), maxJobFreeFunctions)
	if len(names) > maxJobFreeFunctions {
		t.Errorf("package job has %d exported free functions, at most %d: %v", len(names), maxJobFreeFunctions, names)
	}
}

// TestCostModelsLiveInCost: what a step will cost is modelled in package
// cost (issue 72): the command builds its inputs and prints what cost
// returns, so the first line, --estimate and the step's own line read one
// model. cmd/graphcloak and job call none of the models' primitives — the
// Δ2 method's and the audit pass's cost models, the step rate, the
// calibrations', ceilings' and detection's times, a trial pool.
func TestCostModelsLiveInCost(t *testing.T) {
	primitives := map[string]bool{"sensitivity.ChooseMethod": true, "sensitivity.GuessFirst": true, "expm.MeasureStepRate": true,
		"recovery.EstimatePass": true, "answer.PassEstimate": true, "privacy.CalibrationSeconds": true,
		"forecast.CountCeilingWork": true, "community.DetectionSeconds": true, "forecast.NewTrialPool": true}
	// job prices its own lines with cost too; its dry run's first guess
	// reads Δ2's guess (sensitivity.GuessFirst) to choose its wording.
	for dir, allowed := range map[string]string{"cmd/graphcloak": "", "job": "sensitivity.GuessFirst"} {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && primitives[x.Name+"."+sel.Sel.Name] && x.Name+"."+sel.Sel.Name != allowed {
						t.Errorf("%s: %s.%s in %s: model the step in package cost and print its estimate", fset.Position(sel.Pos()), x.Name, sel.Sel.Name, dir)
					}
				}
				return true
			})
		}
	}
}

// maxImportChain bounds the longest chain of this module's packages, each
// importing the next (issue 81: 13 on 2bb6a90, cmd → service → stores →
// internal/jobfiles → job → … → errkind; 12 once the stores no longer
// imported jobfiles: the ledger key is config's, an epoch's spec is
// completed by the command).
const maxImportChain = 12

// TestImportChainStaysShort: the longest import chain among the module's
// packages (non-test imports, counted in packages) is at most
// maxImportChain — a package between two layers, such as a file reader
// importing the job it feeds, lengthens every chain through it.
func TestImportChainStaysShort(t *testing.T) {
	imports := map[string][]string{}
	for _, dir := range moduleDirs(t) {
		path := modulePath
		if dir != "." {
			path += "/" + dir
		}
		for imp := range deps(t, dir, false) {
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				imports[path] = append(imports[path], imp)
			}
		}
	}
	longest := map[string][]string{} // the longest chain from each package
	var chain func(p string) []string
	chain = func(p string) []string {
		if c, ok := longest[p]; ok {
			return c
		}
		best := []string{p}
		for _, q := range imports[p] {
			if c := chain(q); len(c)+1 > len(best) {
				best = append([]string{p}, c...)
			}
		}
		longest[p] = best
		return best
	}
	var worst []string
	for p := range imports {
		if c := chain(p); len(c) > len(worst) || len(c) == len(worst) && strings.Join(c, " ") < strings.Join(worst, " ") {
			worst = c
		}
	}
	names := make([]string, len(worst))
	for i, p := range worst {
		if names[i] = strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/"); names[i] == "" {
			names[i] = "(root)"
		}
	}
	t.Logf("longest import chain: %d packages: %s", len(worst), strings.Join(names, " → "))
	if len(worst) > maxImportChain {
		t.Errorf("the longest import chain is %d packages, at most %d: %s", len(worst), maxImportChain, strings.Join(names, " → "))
	}
}
