package config

import (
	"errors"
	"fmt"
	"github.com/graphcloak/graphcloak/connector"
	"github.com/graphcloak/graphcloak/internal/csvin"
	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/privacy"
	"math"
	"net/url"
	"strings"
)

// Error is a problem with one configuration key. It never carries the value
// of a secret.
type Error struct {
	Key    string // dotted key, or "config" for the file as a whole
	Reason string
	Err    error // underlying cause, may be nil
	// Given is what the user typed to set Key when it was not the file:
	// its flag ("--tau") or environment variable; the message names it
	// instead of Key. Loaded.Validate sets it.
	Given string
}

func (e *Error) Error() string {
	name := e.Key
	if e.Given != "" {
		name = e.Given
	}
	if e.Err != nil {
		return fmt.Sprintf("config: %s: %s: %v", name, e.Reason, e.Err)
	}
	return fmt.Sprintf("config: %s: %s", name, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// ValidIdentifier reports whether s may be used as a Neo4j label,
// relationship type or property name. It is the connector's one rule
// (connector.CheckIdentifier): 1..64 bytes of UTF-8, any name Neo4j
// accepts in backticks except those with a backtick, a backslash or a
// control or format character.
func ValidIdentifier(s string) bool { return connector.CheckIdentifier("property", s) == nil }

// identifierProblem is CheckIdentifier's reason, or "".
func identifierProblem(s string) string {
	var ie *connector.IdentifierError
	if err := connector.CheckIdentifier("name", s); errors.As(err, &ie) {
		return ie.Reason
	}
	return ""
}

// Validate checks every value and returns all problems joined; each is a
// *Error. It needs no connection.
func (c *Config) Validate() error {
	var errs problems
	c.validateNeo4j(errs.add)
	c.validateNames(errs.add)
	c.validatePrivacy(errs.add)
	c.validateOutput(errs.add)
	return errors.Join(errs...)
}

// Validate is Config.Validate with each problem naming what set its key
// (Error.Given): the flag the user typed, or the environment variable;
// a key from the file or the default keeps its dotted name.
func (l *Loaded) Validate() error {
	err := l.Config.Validate()
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	for _, e := range joined.Unwrap() {
		ce, ok := e.(*Error)
		if !ok {
			continue
		}
		k, ok := keyByName(ce.Key)
		switch {
		case !ok:
		case l.Sources[ce.Key] == FromFlag && k.Flag != "":
			ce.Given = "--" + k.Flag
		case l.Sources[ce.Key] == FromEnv:
			ce.Given = k.Env()
		}
	}
	return err
}

// problems collects the *Error values of Validate, in order.
type problems []error

func (p *problems) add(key, format string, args ...any) {
	*p = append(*p, &Error{Key: key, Reason: fmt.Sprintf(format, args...)})
}

// validateNeo4j checks the neo4j.* keys.
func (c *Config) validateNeo4j(add func(key, format string, args ...any)) {
	if c.Neo4j.URI != "" {
		if reason := checkURI(c.Neo4j.URI); reason != "" {
			add("neo4j.uri", "%s", reason)
		}
	}
	if c.Neo4j.Database != "" && !validDatabase(c.Neo4j.Database) {
		add("neo4j.database", "invalid database name %q", c.Neo4j.Database)
	}
	for key, v := range map[string]float64{"neo4j.connectTimeout": c.Neo4j.ConnectTimeout,
		"neo4j.acquisitionTimeout": c.Neo4j.AcquisitionTimeout, "neo4j.transactionTimeout": c.Neo4j.TransactionTimeout} {
		if math.IsNaN(v) || v <= 0 || v > 86400 {
			add(key, "must be in (0, 86400] seconds, got %v", v)
		}
	}
	if c.Neo4j.User != "" && strings.ContainsAny(c.Neo4j.User, "\x00\n\r") {
		add("neo4j.user", "contains control characters")
	}
}

// validateNames checks the projection's and the write's names and the
// write's sizes.
func (c *Config) validateNames(add func(key, format string, args ...any)) {
	names := func(key string, list []string) {
		for _, s := range list {
			if r := identifierProblem(s); r != "" {
				add(key, "%q is not a valid name: it %s", s, r)
			}
		}
	}
	names("projection.nodeLabels", c.Projection.NodeLabels)
	names("projection.relationshipTypes", c.Projection.RelationshipTypes)
	optional := map[string]string{
		"projection.relationshipWeightProperty": c.Projection.RelationshipWeightProperty,
		"projection.nodeKeyProperty":            c.Projection.NodeKeyProperty,
		"projection.valueProperty":              c.Projection.ValueProperty,
	}
	required := map[string]string{
		"write.writeProperty":          c.Write.WriteProperty,
		"write.massProperty":           c.Write.MassProperty,
		"write.communityWriteProperty": c.Write.CommunityWriteProperty,
		"write.probabilityProperty":    c.Write.ProbabilityProperty,
		"write.rankProperty":           c.Write.RankProperty,
	}
	for _, k := range keyTable { // table order, so errors are deterministic
		if s, ok := optional[k.Name]; ok && s != "" {
			if r := identifierProblem(s); r != "" {
				add(k.Name, "%q is not a valid property name: it %s", s, r)
			}
		}
		if s, ok := required[k.Name]; ok {
			if r := identifierProblem(s); r != "" {
				add(k.Name, "%q is not a valid property name: it %s", s, r)
			}
		}
	}
	if c.Write.BatchSize < 1 {
		add("write.batchSize", "must be at least 1, got %d", c.Write.BatchSize)
	}
	if c.Write.Concurrency < 1 || c.Write.Concurrency > 1024 {
		add("write.concurrency", "must be in [1, 1024], got %d", c.Write.Concurrency)
	}
}

// validatePrivacy checks the privacy.* keys.
func (c *Config) validatePrivacy(add func(key, format string, args ...any)) {
	p := c.Privacy
	positive := func(key string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
			add(key, "must be finite and > 0, got %v", x)
		}
	}
	unit := func(key string, x float64) {
		if math.IsNaN(x) || x <= 0 || x >= 1 {
			add(key, "must be in (0, 1), got %v", x)
		}
	}
	positive("privacy.tau", p.Tau)
	positive("privacy.alpha", p.Alpha)
	positive("privacy.epsilon", p.Epsilon)
	unit("privacy.delta", p.Delta)
	// The lifetime budget is unset (0) except for budget --init, which
	// requires it; when given it must be valid.
	if p.EpsilonTotal != 0 {
		positive("privacy.epsilonTotal", p.EpsilonTotal)
	}
	if p.DeltaTotal != 0 {
		unit("privacy.deltaTotal", p.DeltaTotal)
	}
	// The names a release takes are privacy's mechanism table's; a row's ε
	// bound is a release's (privacy.MechanismSpec.CheckEpsilon, read with
	// the release's spec), not a private answer's, which has its own
	// mechanism.
	if m, ok := privacy.LookupMechanism(p.Mechanism); !ok || m.Sampler == 0 {
		add("privacy.mechanism", "must be %s, got %q", privacy.ReleaseMechanismNames(), p.Mechanism)
	}
	if strings.ContainsAny(p.Ledger, "\x00") { // empty: the per-user default ledger
		add("privacy.ledger", "must be a file path or neo4j")
	}
	if err := privacy.CheckName("scope", p.Scope); err != nil {
		add("privacy.scope", "%v", err)
	}
	if p.Epoch != "" {
		if err := privacy.CheckName("epoch", p.Epoch); err != nil {
			add("privacy.epoch", "%v", err)
		}
	}
}

// validateOutput checks the remaining keys: the seed, the recovery, the
// output, the input header and the logging.
func (c *Config) validateOutput(add func(key, format string, args ...any)) {
	if c.Write.RandomSeed < 0 {
		add("write.randomSeed", "must be ≥ 0, got %d", c.Write.RandomSeed)
	}
	if c.Recovery.Sources < 1 {
		add("recovery.sources", "must be at least 1, got %d", c.Recovery.Sources)
	}
	if c.Output != "table" && c.Output != "json" {
		add("output", "must be table or json, got %q", c.Output)
	}
	if _, err := csvin.ParseHeader(c.Input.Header); err != nil {
		add("input.header", "must be auto, yes or no, got %q", c.Input.Header)
	}
	if _, err := laplacian.ParseDuplicateRule(c.Input.DuplicateEdges); err != nil {
		add("input.duplicateEdges", "must be %s, got %q", strings.Join(laplacian.DuplicateRuleNames(), ", "), c.Input.DuplicateEdges)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		add("logLevel", "must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		add("logFormat", "must be text or json, got %q", c.LogFormat)
	}
}

// checkURI returns why a Neo4j URI is unacceptable, or "". The reason
// never repeats credentials embedded in the URI.
func checkURI(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "not a valid URI"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return "must not contain a password; use GRAPHCLOAK_NEO4J_PASSWORD"
		}
	}
	for k := range u.Query() {
		switch strings.ToLower(k) {
		case "password", "pass", "pwd", "passwd", "token", "credentials", "auth", "secret":
			return "must not carry credentials in its query string; use GRAPHCLOAK_NEO4J_PASSWORD"
		}
	}
	switch u.Scheme {
	case "bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc":
	default:
		return fmt.Sprintf("scheme must be bolt or neo4j with optional +s or +ssc, got %q", u.Scheme)
	}
	if u.Host == "" {
		return "missing host"
	}
	return ""
}

// validDatabase follows Neo4j's database naming rule: ASCII letters,
// digits, dots and dashes, starting with a letter, 3–63 characters.
func validDatabase(s string) bool {
	if len(s) < 3 || len(s) > 63 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '.' || r == '-'):
		default:
			return false
		}
	}
	return true
}
