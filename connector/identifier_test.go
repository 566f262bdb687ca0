package connector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// allowed is the documented rule, written independently as an oracle.
func allowed(name string) bool {
	if name == "" || len(name) > 64 || !utf8.ValidString(name) || name == "*" || strings.ContainsAny(name, "`\\") {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name string
		want string // "" = refused
	}{
		{"Person", "`Person`"},
		{"_x1", "`_x1`"},
		{"MATCH", "`MATCH`"}, // reserved words are fine once quoted
		{"a_b_C_9", "`a_b_C_9`"},
		{strings.Repeat("a", 64), "`" + strings.Repeat("a", 64) + "`"},
		// Names Neo4j accepts in backticks (issue 12: Raum_ü was refused).
		{"Raum_ü", "`Raum_ü`"},
		{"Ä", "`Ä`"},
		{"1abc", "`1abc`"},
		{"A B", "`A B`"},
		{"A:B", "`A:B`"},
		{"A-B", "`A-B`"},
		{"A.B", "`A.B`"},
		{"A'", "`A'`"},
		{`A"`, "`A\"`"},
		{"日本語", "`日本語`"},
		{strings.Repeat("ü", 32), "`" + strings.Repeat("ü", 32) + "`"}, // 64 bytes
		{strings.Repeat("ü", 33), ""},
		{strings.Repeat("a", 65), ""},
		{"", ""},
		{"*", ""},
		{"A`", ""},
		{"A`) DETACH DELETE n //", ""},
		{`A\u0060`, ""},
		{`A\u0060) DETACH DELETE n //`, ""},
		{"A\u0060", ""},
		{"A\x00", ""},
		{"A\n", ""},
		{"A\u200bB", ""}, // zero-width space
		{"A\u202eB", ""}, // right-to-left override
		{"A\xff", ""},    // not UTF-8
	}
	for _, tc := range tests {
		got, err := Quote("label", tc.name)
		if tc.want == "" {
			var ie *IdentifierError
			if !errors.As(err, &ie) || ie.What != "label" {
				t.Errorf("Quote(%q) = %q, %v; want *IdentifierError", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Quote(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// lexQuoted models how Neo4j 4.2–5.x lexes a backtick-quoted name that
// starts at q[0]: a doubled backtick is a literal backtick, \uXXXX is
// decoded, a single backtick ends the name. It returns the name and the
// index just after the closing backtick (-1 if the quote never closes).
func lexQuoted(q string) (string, int) {
	var b strings.Builder
	for i := 1; i < len(q); i++ {
		switch {
		case q[i] == '`' && i+1 < len(q) && q[i+1] == '`':
			b.WriteByte('`')
			i++
		case q[i] == '`':
			return b.String(), i + 1
		case q[i] == '\\' && i+5 < len(q) && q[i+1] == 'u':
			var r rune
			if _, err := fmt.Sscanf(q[i+2:i+6], "%04x", &r); err == nil {
				if r == '`' {
					return b.String(), i + 6 // a decoded backtick closes the name
				}
				b.WriteRune(r)
				i += 5
				continue
			}
			b.WriteByte(q[i])
		default:
			b.WriteByte(q[i])
		}
	}
	return b.String(), -1
}

// FuzzQuote: Quote accepts exactly the documented rule, and what it
// returns, read by a model of Neo4j's lexer, is one quoted name that ends
// exactly at the end and decodes to the input: no input escapes the quote.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"A", "A`B", `A\u0060`, "a b", "_", "9", "ß", "Raum_ü", "x``y", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		q, err := Quote("property", name)
		if (err == nil) != allowed(name) {
			t.Fatalf("Quote(%q) err = %v, rule says %v", name, err, allowed(name))
		}
		if err != nil {
			return
		}
		got, end := lexQuoted(q)
		if end != len(q) || got != name {
			t.Fatalf("Quote(%q) = %q lexes as %q ending at %d of %d", name, q, got, end, len(q))
		}
	})
}

func TestProjectionValidate(t *testing.T) {
	ok := Projection{NodeLabels: []string{"Person", "Sensor"}, RelationshipTypes: []string{"KNOWS"},
		RelationshipWeightProperty: "w", NodeKeyProperty: "id", CommunityProperty: "louvain", ValueProperty: "heat", Database: "neo4j"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (Projection{}).Validate(); err != nil {
		t.Fatalf("empty projection (all nodes, all types): %v", err)
	}
	if err := (Projection{NodeLabels: []string{"*"}, RelationshipTypes: []string{"*"}}).Validate(); err != nil {
		t.Fatalf("wildcards: %v", err)
	}
	bad := []func(p *Projection){
		func(p *Projection) { p.NodeLabels = []string{"Person", "A`) DETACH DELETE n //"} },
		func(p *Projection) { p.NodeLabels = []string{"*", "Person"} },
		func(p *Projection) { p.RelationshipTypes = []string{`K\u0060`} },
		func(p *Projection) { p.RelationshipWeightProperty = "w`" },
		func(p *Projection) { p.NodeKeyProperty = "id\nx" },
		func(p *Projection) { p.CommunityProperty = "c\u202e" },
		func(p *Projection) { p.ValueProperty = strings.Repeat("v", 65) },
		func(p *Projection) { p.Database = "neo4j`" },
		func(p *Projection) { p.Database = ".neo4j" },
	}
	for i, mut := range bad {
		p := ok
		mut(&p)
		var ie *IdentifierError
		if err := p.Validate(); !errors.As(err, &ie) {
			t.Errorf("case %d (%+v): err = %v, want *IdentifierError", i, p, err)
		}
	}
}

func TestCompiledQueryText(t *testing.T) {
	cp, err := Projection{NodeLabels: []string{"A", "B"}, RelationshipTypes: []string{"T"}}.compile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cp.nodeMatch("n"); got != "(n:`A`|`B` WHERE NOT n:`GraphcloakRun`|`GraphcloakLedger`|`GraphcloakCharge`|`GraphcloakReleaseValues`|`GraphcloakScopeLease`|`GraphcloakOutput`)" {
		t.Errorf("nodeMatch = %q", got)
	}
	if cp.relPattern != "r:`T`" {
		t.Errorf("relPattern = %q", cp.relPattern)
	}
	cp, _ = Projection{}.compile()
	if cp.nodeMatch("n") != "(n WHERE NOT n:`GraphcloakRun`|`GraphcloakLedger`|`GraphcloakCharge`|`GraphcloakReleaseValues`|`GraphcloakScopeLease`|`GraphcloakOutput`)" || cp.relPattern != "r" {
		t.Errorf("wildcard patterns %q %q", cp.nodeMatch("n"), cp.relPattern)
	}
}

// TestConnectRefusesBadURIs checks the URI rules without a server: only
// bolt/neo4j and their +s/+ssc variants, no credentials in the URI, and
// the refusal never echoes a password.
func TestConnectRefusesBadURIs(t *testing.T) {
	for _, uri := range []string{
		"http://localhost:7474", "https://localhost:7473", "bolt+x://localhost", "localhost:7687", "",
		"bolt://neo4j:hunter22@localhost:7687", "ftp://x", "bolt://",
	} {
		_, err := Connect(context.Background(), Options{URI: uri, Password: "hunter22"})
		var ae *ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("Connect(%q) err = %v, want *ArgumentError", uri, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter22") {
			t.Errorf("Connect(%q) error %q leaks the password", uri, err)
		}
	}
}

func ExampleQuote() {
	q, err := Quote("label", "Person")
	fmt.Println(q, err)
	_, err = Quote("label", "Person`) DETACH DELETE n //")
	fmt.Println(err)
	// Output:
	// `Person` <nil>
	// connector: invalid label name "Person`) DETACH DELETE n //": contains a backtick
}
