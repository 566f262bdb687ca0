package connector

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// identRE is the documented allow-list, used as an independent oracle.
var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
		{strings.Repeat("a", 65), ""},
		{"", ""},
		{"1abc", ""},
		{"A`", ""},
		{"A`) DETACH DELETE n //", ""},
		{`A\u0060`, ""},
		{`A\u0060) DETACH DELETE n //`, ""},
		{"A\u0060", ""},
		{"A B", ""},
		{"A:B", ""},
		{"A-B", ""},
		{"A.B", ""},
		{"Ä", ""},
		{"A\x00", ""},
		{"A\n", ""},
		{"A'", ""},
		{`A"`, ""},
		{"*", ""},
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

// FuzzQuote checks that Quote accepts exactly the allow-list and that an
// accepted name, quoted, contains no character that could end the quote.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"A", "A`B", `A\u0060`, "a b", "_", "9", "ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		q, err := Quote("property", name)
		want := identRE.MatchString(name) && len(name) <= 64
		if (err == nil) != want {
			t.Fatalf("Quote(%q) err = %v, allow-list says %v", name, err, want)
		}
		if err == nil {
			inner := q[1 : len(q)-1]
			if q[0] != '`' || q[len(q)-1] != '`' || strings.ContainsAny(inner, "`\\") || inner != name {
				t.Fatalf("Quote(%q) = %q", name, q)
			}
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
		func(p *Projection) { p.NodeKeyProperty = "id x" },
		func(p *Projection) { p.CommunityProperty = "c;" },
		func(p *Projection) { p.ValueProperty = "1v" },
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
	if got := cp.nodeMatch("n"); got != "(n:`A`|`B`)" {
		t.Errorf("nodeMatch = %q", got)
	}
	if cp.relPattern != "r:`T`" {
		t.Errorf("relPattern = %q", cp.relPattern)
	}
	cp, _ = Projection{}.compile()
	if cp.nodeMatch("n") != "(n WHERE NOT n:`GraphcloakRun`|`GraphcloakLedger`|`GraphcloakCharge`|`GraphcloakReleaseValues`)" || cp.relPattern != "r" {
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
