package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// isolate keeps the user's environment and config file out of a test.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, envPrefix+"_") {
			name, _, _ := strings.Cut(e, "=")
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, Neo4jFlags...)
	AddFlags(fs, PrivacyFlags...)
	AddFlags(fs, WriteFlags...)
	AddFlags(fs, "sources", "estimator", "output", "log-format", "value-property")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestPrecedence(t *testing.T) {
	// Each row sets privacy.epsilon in some of the four places; the
	// highest-precedence one present must win.
	tests := []struct {
		file, env, flag string
		want            float64
		source          Source
	}{
		{"", "", "", 1, FromDefault},
		{"2", "", "", 2, FromFile},
		{"", "3", "", 3, FromEnv},
		{"", "", "4", 4, FromFlag},
		{"2", "3", "", 3, FromEnv},
		{"2", "", "4", 4, FromFlag},
		{"", "3", "4", 4, FromFlag},
		{"2", "3", "4", 4, FromFlag},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("file=%s,env=%s,flag=%s", tc.file, tc.env, tc.flag), func(t *testing.T) {
			isolate(t)
			var opts Options
			if tc.file != "" {
				p := filepath.Join(t.TempDir(), "c.yaml")
				if err := os.WriteFile(p, []byte("privacy:\n  epsilon: "+tc.file+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				opts.File = p
			}
			if tc.env != "" {
				t.Setenv("GRAPHCLOAK_PRIVACY_EPSILON", tc.env)
			}
			var args []string
			if tc.flag != "" {
				args = []string{"--epsilon", tc.flag}
			}
			opts.Flags = flags(t, args...)
			l, err := Load(opts)
			if err != nil {
				t.Fatal(err)
			}
			if l.Privacy.Epsilon != tc.want || l.Sources["privacy.epsilon"] != tc.source {
				t.Errorf("epsilon = %v from %s, want %v from %s", l.Privacy.Epsilon, l.Sources["privacy.epsilon"], tc.want, tc.source)
			}
			if l.Privacy.Delta != 1e-5 || l.Sources["privacy.delta"] != FromDefault {
				t.Errorf("untouched delta = %v from %s, want default 1e-5", l.Privacy.Delta, l.Sources["privacy.delta"])
			}
		})
	}
}

func TestDefaultFileLocation(t *testing.T) {
	isolate(t)
	dir := os.Getenv("XDG_CONFIG_HOME")
	if err := os.MkdirAll(filepath.Join(dir, "graphcloak"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "graphcloak", "config.yaml")
	if err := os.WriteFile(p, []byte("write:\n  batchSize: 77\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.File != p || l.Write.BatchSize != 77 {
		t.Errorf("file %q batchSize %d, want %q 77", l.File, l.Write.BatchSize, p)
	}
	// An explicit --config that does not exist is an error, not a fallback.
	if _, err := Load(Options{File: filepath.Join(dir, "missing.yaml")}); err == nil {
		t.Error("missing explicit config file accepted")
	}
}

func TestEnvMapping(t *testing.T) {
	isolate(t)
	env := map[string]string{
		"GRAPHCLOAK_NEO4J_URI":                    "bolt+s://db.example.com:7687",
		"GRAPHCLOAK_NEO4J_PASSWORD":               "s3cret-env",
		"GRAPHCLOAK_PROJECTION_NODELABELS":        "Room, Sensor",
		"GRAPHCLOAK_PROJECTION_RELATIONSHIPTYPES": "ADJ",
		"GRAPHCLOAK_WRITE_BATCHSIZE":              "500",
		"GRAPHCLOAK_WRITE_RANDOMSEED":             "7",
		"GRAPHCLOAK_PRIVACY_DELTA":                "1e-7",
		"GRAPHCLOAK_RECOVERY_SOURCES":             "3",
		"GRAPHCLOAK_PRIVACY_REFUSEATCHANCE":       "true",
		"GRAPHCLOAK_OUTPUT":                       "json",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	l, err := Load(Options{Flags: flags(t)})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Neo4j.URI != "bolt+s://db.example.com:7687" || c.Neo4j.Password != "s3cret-env" ||
		strings.Join(c.Projection.NodeLabels, "|") != "Room|Sensor" ||
		strings.Join(c.Projection.RelationshipTypes, "|") != "ADJ" ||
		c.Write.BatchSize != 500 || c.Write.RandomSeed != 7 || c.Privacy.Delta != 1e-7 ||
		c.Recovery.Sources != 3 || c.Output != "json" || !c.Privacy.RefuseAtChance {
		t.Errorf("env not mapped: %+v", c.Redacted())
	}
	for k := range env {
		found := false
		for _, key := range keyTable {
			if key.Env() == k {
				found = true
				if l.Sources[key.Name] != FromEnv {
					t.Errorf("%s source = %s, want env", key.Name, l.Sources[key.Name])
				}
			}
		}
		if !found {
			t.Errorf("no key maps to %s", k)
		}
	}
	if err := c.Validate(); err != nil {
		t.Errorf("valid env config refused: %v", err)
	}
}

const fullYAML = `
neo4j:
  uri: neo4j+ssc://graph.local:7687
  user: analyst
  password: "file-pass-123"
  database: sensors
  connectTimeout: 5
  acquisitionTimeout: 10
  transactionTimeout: 600
projection:
  name: rooms
  nodeLabels: [Room]
  relationshipTypes: [CONNECTS, DOOR]
  relationshipWeightProperty: conductance
  nodeKeyProperty: roomId
  valueProperty: temperature
write:
  writeProperty: private_temp
  massProperty: mass
  communityWriteProperty: comm
  probabilityProperty: prob
  rankProperty: rnk
  batchSize: 2000
  concurrency: 2
  randomSeed: 9
privacy:
  tau: 0.5
  alpha: 2
  epsilon: 4
  delta: 1e-6
  mechanism: discrete
  epsilonTotal: 40
  deltaTotal: 1e-4
  keyFile: /etc/graphcloak/key
  ledgerKeyFile: /etc/graphcloak/ledger.key
  ledger: neo4j
  scope: building-7
  epoch: "2026-11-21"
  refuseAtChance: true
recovery:
  estimator: bpdn
  sources: 2
  communities: file:/etc/graphcloak/communities.csv
output: json
logFormat: json
logLevel: warn
input:
  header: "yes"
  duplicateEdges: sum
`

func TestYAML(t *testing.T) {
	isolate(t)
	l, err := load([]byte(fullYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Neo4j: Neo4j{URI: "neo4j+ssc://graph.local:7687", User: "analyst", Password: "file-pass-123", Database: "sensors",
			ConnectTimeout: 5, AcquisitionTimeout: 10, TransactionTimeout: 600},
		Projection: Projection{Name: "rooms", NodeLabels: []string{"Room"}, RelationshipTypes: []string{"CONNECTS", "DOOR"}, RelationshipWeightProperty: "conductance", NodeKeyProperty: "roomId", ValueProperty: "temperature"},
		Write:      Write{WriteProperty: "private_temp", MassProperty: "mass", CommunityWriteProperty: "comm", ProbabilityProperty: "prob", RankProperty: "rnk", BatchSize: 2000, Concurrency: 2, RandomSeed: 9},
		Privacy:    Privacy{Tau: 0.5, Alpha: 2, Epsilon: 4, Delta: 1e-6, Mechanism: "discrete", EpsilonTotal: 40, DeltaTotal: 1e-4, KeyFile: "/etc/graphcloak/key", LedgerKeyFile: "/etc/graphcloak/ledger.key", Ledger: "neo4j", Scope: "building-7", Epoch: "2026-11-21", RefuseAtChance: true},
		Recovery:   Recovery{Estimator: "bpdn", Sources: 2, Communities: "file:/etc/graphcloak/communities.csv"},
		Output:     "json", LogFormat: "json", LogLevel: "warn", Input: Input{Header: "yes", DuplicateEdges: "sum"},
	}
	got, _ := json.Marshal(l.Config)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Errorf("YAML parsed as\n%s\nwant\n%s", got, exp)
	}
	for _, k := range keyTable {
		if l.Sources[k.Name] != FromFile {
			t.Errorf("%s source %s, want file", k.Name, l.Sources[k.Name])
		}
	}
	for _, e := range l.Entries() { // config show prints every value
		if e.Value == nil {
			t.Errorf("config show has no value for %s", e.Key)
		}
	}
	if err := l.Validate(); err != nil {
		t.Errorf("valid file refused: %v", err)
	}
}

func TestYAMLErrors(t *testing.T) {
	isolate(t)
	tests := []struct{ name, yaml, key string }{
		{"unknown key", "privacy:\n  epsilom: 1\n", "config"},
		{"not yaml", "neo4j: [unclosed\n", "config"},
		{"float as text", "privacy:\n  tau: warm\n", "privacy.tau"},
		{"fractional int", "write:\n  batchSize: 10.5\n", "write.batchSize"},
		{"map for string", "neo4j:\n  uri: {a: 1}\n", "neo4j.uri"},
		{"map in list", "projection:\n  nodeLabels: [{a: 1}]\n", "projection.nodeLabels"},
		{"bool as number", "privacy:\n  epsilon: true\n", "privacy.epsilon"},
		{"number as bool", "privacy:\n  refuseAtChance: 1\n", "privacy.refuseAtChance"},
		{"text as bool", "privacy:\n  refuseAtChance: sometimes\n", "privacy.refuseAtChance"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load([]byte(tc.yaml), nil)
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != tc.key {
				t.Errorf("error %v, want *Error for key %s", err, tc.key)
			}
		})
	}
}

func valid() Config {
	l, err := load(nil, nil)
	if err != nil {
		panic(err)
	}
	return l.Config
}

func TestDefaultsValid(t *testing.T) {
	isolate(t)
	c := valid()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if c.Write.WriteProperty != "graphcloak_value" || c.Write.BatchSize != 10000 {
		t.Errorf("defaults %+v", c.Write)
	}
}

func TestValidate(t *testing.T) {
	isolate(t)
	tests := []struct {
		name   string
		mutate func(*Config)
		key    string
	}{
		{"http scheme", func(c *Config) { c.Neo4j.URI = "http://localhost:7474" }, "neo4j.uri"},
		{"bolt+x", func(c *Config) { c.Neo4j.URI = "bolt+x://h:1" }, "neo4j.uri"},
		{"no host", func(c *Config) { c.Neo4j.URI = "bolt://" }, "neo4j.uri"},
		{"password in uri", func(c *Config) { c.Neo4j.URI = "bolt://u:pw@h:7687" }, "neo4j.uri"},
		{"database", func(c *Config) { c.Neo4j.Database = "a`b" }, "neo4j.database"},
		{"label backtick", func(c *Config) { c.Projection.NodeLabels = []string{"Room`) DETACH DELETE n //"} }, "projection.nodeLabels"},
		{"label backslash", func(c *Config) { c.Projection.NodeLabels = []string{`A\u0060`} }, "projection.nodeLabels"},
		{"type newline", func(c *Config) { c.Projection.RelationshipTypes = []string{"ADJ\nX"} }, "projection.relationshipTypes"},
		{"weight", func(c *Config) { c.Projection.RelationshipWeightProperty = "w`eight" }, "projection.relationshipWeightProperty"},
		{"value property", func(c *Config) { c.Projection.ValueProperty = "temp\u200berature" }, "projection.valueProperty"},
		{"write property empty", func(c *Config) { c.Write.WriteProperty = "" }, "write.writeProperty"},
		{"rank property", func(c *Config) { c.Write.RankProperty = "r`" }, "write.rankProperty"},
		{"batch 0", func(c *Config) { c.Write.BatchSize = 0 }, "write.batchSize"},
		{"concurrency 0", func(c *Config) { c.Write.Concurrency = 0 }, "write.concurrency"},
		{"tau 0", func(c *Config) { c.Privacy.Tau = 0 }, "privacy.tau"},
		{"tau inf", func(c *Config) { c.Privacy.Tau = posInf() }, "privacy.tau"},
		{"alpha negative", func(c *Config) { c.Privacy.Alpha = -1 }, "privacy.alpha"},
		{"epsilon NaN", func(c *Config) { c.Privacy.Epsilon = nan() }, "privacy.epsilon"},
		{"delta 0", func(c *Config) { c.Privacy.Delta = 0 }, "privacy.delta"},
		{"delta 1", func(c *Config) { c.Privacy.Delta = 1 }, "privacy.delta"},
		{"delta NaN", func(c *Config) { c.Privacy.Delta = nan() }, "privacy.delta"},
		{"epsilon total", func(c *Config) { c.Privacy.EpsilonTotal = -1 }, "privacy.epsilonTotal"},
		{"delta total", func(c *Config) { c.Privacy.DeltaTotal = 2 }, "privacy.deltaTotal"},
		{"mechanism", func(c *Config) { c.Privacy.Mechanism = "laplace" }, "privacy.mechanism"},
		{"analytic refused", func(c *Config) { c.Privacy.Mechanism = "analytic" }, "privacy.mechanism"},
		{"ledger", func(c *Config) { c.Privacy.Ledger = "bad\x00path" }, "privacy.ledger"},
		{"scope", func(c *Config) { c.Privacy.Scope = "" }, "privacy.scope"},
		{"sources", func(c *Config) { c.Recovery.Sources = 0 }, "recovery.sources"},
		{"output", func(c *Config) { c.Output = "yaml" }, "output"},
		{"log", func(c *Config) { c.LogFormat = "xml" }, "logFormat"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.mutate(&c)
			err := c.Validate()
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != tc.key {
				t.Fatalf("Validate = %v, want *Error for %s", err, tc.key)
			}
			if strings.Contains(err.Error(), "pw@") {
				t.Errorf("error repeats URI credentials: %v", err)
			}
		})
	}
	// Accepted URI forms.
	for _, u := range []string{"bolt://h:7687", "bolt+s://h", "bolt+ssc://h", "neo4j://h", "neo4j+s://h:1", "neo4j+ssc://h"} {
		c := valid()
		c.Neo4j.URI = u
		if err := c.Validate(); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
}

func TestPasswordNeverShown(t *testing.T) {
	isolate(t)
	const pw = "Tr0ub4dor&3-unique"
	// From the flag: a warning, and the value only in Config.Neo4j.Password.
	l, err := Load(Options{Flags: flags(t, "--password", pw, "--uri", "bolt://h:7687")})
	if err != nil {
		t.Fatal(err)
	}
	if l.Neo4j.Password != pw {
		t.Fatalf("password not loaded")
	}
	if len(l.Warnings) != 1 || l.Warnings[0] != PasswordFlagWarning {
		t.Errorf("warnings %q, want the password warning", l.Warnings)
	}
	var outputs []string
	b, _ := json.Marshal(l.Redacted())
	outputs = append(outputs, string(b), fmt.Sprintf("%+v", l.Redacted()))
	b, _ = json.Marshal(l.Entries())
	outputs = append(outputs, string(b))
	for _, e := range l.Entries() {
		if e.Key == "neo4j.password" && e.Value != redacted {
			t.Errorf("password entry %v, want %s", e.Value, redacted)
		}
	}
	// Errors involving the password: wrong type in YAML, broken YAML on the
	// password line, password in the URI.
	for _, y := range []string{
		"neo4j:\n  password: [" + pw + "]\n",
		"neo4j:\n  password: " + pw + "\n  user: [x\n",
		"neo4j:\n  password: \"" + pw + "\n",
		"neo4j:\n  password: " + pw + "\n   - bad: indent\n",
	} {
		if _, err := load([]byte(y), nil); err != nil {
			outputs = append(outputs, err.Error())
		} else {
			t.Errorf("broken YAML accepted: %q", y)
		}
	}
	c := valid()
	c.Neo4j.URI = "bolt://neo4j:" + pw + "@h:7687"
	if err := c.Validate(); err != nil {
		outputs = append(outputs, err.Error())
	} else {
		t.Error("URI with password accepted")
	}
	b, _ = json.Marshal(c.Redacted())
	outputs = append(outputs, string(b))
	for _, o := range outputs {
		if strings.Contains(o, pw) {
			t.Errorf("password leaked: %s", o)
		}
	}
}

func TestAddFlagsBindsOnlyOwnFlags(t *testing.T) {
	isolate(t)
	// A command's own --sources flag of another type is not configuration.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("sources", "", "")
	if err := fs.Parse([]string{"--sources", "3,5"}); err != nil {
		t.Fatal(err)
	}
	l, err := Load(Options{Flags: fs})
	if err != nil {
		t.Fatal(err)
	}
	if l.Recovery.Sources != 1 {
		t.Errorf("foreign flag bound: sources = %d", l.Recovery.Sources)
	}
}

func FuzzLoadYAML(f *testing.F) {
	f.Add([]byte(fullYAML))
	f.Add([]byte("privacy: {tau: 1e309}\n"))
	f.Add([]byte("neo4j:\n  password: [a, {b: c}]\n"))
	f.Add([]byte("- 1\n- 2\n"))
	f.Add([]byte("write: {batchSize: .nan}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := load(data, nil)
		if err != nil {
			return
		}
		_ = l.Validate()
		_ = l.Entries()
	})
}

// A list flag never drops what follows a newline (pflag reads lists as
// CSV): the value is refused, naming the character.
func TestListFlagRefusesControlCharacters(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddFlags(fs, "node-labels")
	if err := fs.Parse([]string{"--node-labels", "A\nB"}); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("--node-labels A\\nB: %v", err)
	}
	fs = pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs, "node-labels")
	if err := fs.Parse([]string{"--node-labels", "Raum_ü,Room"}); err != nil {
		t.Fatal(err)
	}
	if got := fs.Lookup("node-labels").Value.String(); got != "[Raum_ü,Room]" {
		t.Errorf("parsed %s", got)
	}
}
