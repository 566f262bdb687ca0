package integration

import (
	"fmt"
	"strings"
)

// injectionCorpus is a generated corpus of a few hundred hostile names for
// labels, relationship types and property names (issue 49: its filer tried
// 414 strings that are not in the repository). It is deterministic and
// holds no duplicates. Its families:
//
//   - quote breakers: backticks alone, doubled, around keywords; the
//     escape \u0060 (Neo4j's lexer decodes it inside backticks) and other
//     backslash escapes; single and double quotes, escaped or not;
//   - Cypher: keywords and whole clauses (MATCH … DETACH DELETE, SET,
//     REMOVE, CALL, LOAD CSV, CREATE, MERGE, FOREACH, UNION, USE system),
//     each bare, after a closing backtick, brace or bracket, and after a
//     label or property separator (":", "|", "&", "{", "}", ".");
//   - comments // and /* */, semicolons, statement ends;
//   - parameters ($param, $0, ${x}, $`x`);
//   - line breaks (\n, \r, \u2028, \u2029), tabs, NUL and other control
//     characters, zero-width and direction characters (U+200B … U+200F,
//     U+202A … U+202E, U+2060, U+FEFF);
//   - unicode confusables: fullwidth and Cyrillic/Greek letters that look
//     like graphcloak's labels, the fullwidth grave accent and modifier
//     letters that look like a backtick;
//   - graphcloak's own labels (GraphcloakRun, GraphcloakLedger, …) and
//     bookkeeping property names (rhoSpent, spent, runId, scope, chargeId,
//     kind, property, …) in various cases, with prefixes and suffixes;
//   - lengths: empty, one byte, 64 bytes (the limit), 65 bytes, a 64-byte
//     name ending in half of a multibyte character, 1 000 and 70 000 bytes;
//     invalid UTF-8;
//   - wildcards and separators: "*", ",", spaces only, "a,b", "a|b".
func injectionCorpus() []string {
	var c []string
	seen := map[string]bool{}
	add := func(ss ...string) {
		for _, s := range ss {
			if !seen[s] {
				seen[s] = true
				c = append(c, s)
			}
		}
	}

	// Quote breakers.
	add("`", "``", "```", "a`b", "a``b", "`a`", "a`", "`a", "x` MATCH (n) DETACH DELETE n //",
		"x`) DETACH DELETE n WITH 1 AS `y", "x``) DETACH DELETE n //",
		`\u0060`, `x\u0060 DETACH DELETE n //`, `\u0060\u0060`, `x\u0060) DETACH DELETE n WITH 1 AS \u0060y`,
		`\\u0060`, `\`, `a\b`, `\n`, `\'`, `\"`, `\x60`, `\u005c`, "\\`",
		"'", `"`, `''`, `""`, `a'b`, `a"b`, `\'; MATCH (n) DETACH DELETE n; //`,
		`x' OR 1=1 //`, `x" OR "1"="1`, `' + $p + '`)

	// Cypher clauses, bare and after every kind of closer.
	clauses := []string{
		"MATCH (n) DETACH DELETE n",
		"MATCH (n:GraphcloakLedger) SET n.rhoSpent = 0",
		"MATCH (n:GraphcloakCharge) DELETE n",
		"MATCH (r:GraphcloakRun) SET r.status = 'published'",
		"MATCH (o:GraphcloakOutput) DETACH DELETE o",
		"CREATE (:GraphcloakRun {runId: 'x'})",
		"MERGE (l:GraphcloakLedger {scope: 'x'}) SET l.spent = 0",
		"REMOVE n:GraphcloakRun",
		"SET n += {rhoSpent: 276}",
		"CALL db.labels()",
		"LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
		"FOREACH (x IN [1] | CREATE (:X))",
		"UNION MATCH (n) RETURN n",
		"USE system SHOW USERS",
	}
	for _, cl := range clauses {
		add(cl,
			"x` "+cl+" //",
			"x`) "+cl+" //",
			"x`}) "+cl+" //",
			`x\u0060 `+cl+" //",
			"x) "+cl+" //",
			"x\n"+cl,
			"x; "+cl,
		)
	}
	for _, k := range []string{"MATCH", "DETACH", "SET", "RETURN", "WITH", "UNWIND", "CALL", "UNION", "NULL",
		"CONSTRAINT", "USE", "count", "elementId", "n", "row", "props"} {
		add(k, strings.ToLower(k)+" ")
	}

	// Separators of label expressions, maps and properties.
	for _, s := range []string{":", "|", "&", "!", "{", "}", "[", "]", "(", ")", ".", ",", "=", "->", "*"} {
		add(s, "a"+s+"b")
	}
	add("a:GraphcloakRun", "L:GraphcloakLedger", "a|GraphcloakCharge", "a&GraphcloakRun", "a {rhoSpent: 1}",
		"a}) SET n.rhoSpent = 1 //", "n.rhoSpent", "n['rhoSpent']")

	// Comments and statement ends.
	add("//", "/*", "*/", "/* */", "a//b", "a/*b*/c", "a /*", "*/ a", ";", ";;", "a;", ";a", "a; b", "-- a", "# a")

	// Parameters.
	add("$p", "$0", "$rows", "$props", "$scope", "$key", "${x}", "$`x`", "$ p", "x$p", "$p.x", "$p[0]", "{p}")

	// Line breaks, tabs, NUL and other control characters.
	for _, ch := range []string{"\n", "\r", "\r\n", "\t", "\v", "\f", "\x00", "\x01", "\x1b", "\x7f", "\u0085", "\u2028", "\u2029"} {
		add("a"+ch+"b", ch, ch+"a", "a"+ch)
	}
	add("a\nMATCH (n) DETACH DELETE n", "Graphcloak\x00Run", "GraphcloakRun\x00", "\x00GraphcloakRun", "a\x1b[31mred")

	// Zero-width and direction characters.
	for _, ch := range []string{"\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d",
		"\u202e", "\u2060", "\u2066", "\u2069", "\ufeff", "\u00ad", "\u180e"} {
		add("Graphcloak"+ch+"Run", "rho"+ch+"Spent")
	}

	// Confusables: letters that look like graphcloak's labels, and
	// characters that look like a backtick or a quote.
	add("Ｇｒａｐｈｃｌｏａｋ Ｒｕｎ", "ＧｒａｐｈｃｌｏａｋＲｕｎ", "GrаphcloakRun" /* Cyrillic а */, "GraphcloakRυn", /* Greek υ */
		"ƓraphcloakRun", "Graphcl0akRun", "GraphcIoakRun", "GraphcloakLedgеr" /* Cyrillic е */, "rhoЅpent", /* Cyrillic Ѕ */
		"｀", "ˋ", "ʻ", "‘", "’", "′", "´", "x｀) DETACH DELETE n //", "x´ DETACH DELETE n", "＼u0060", "＄p", "；", "／／")

	// graphcloak's own names in various cases and shapes.
	own := []string{"GraphcloakRun", "GraphcloakLedger", "GraphcloakCharge", "GraphcloakReleaseValues",
		"GraphcloakScopeLease", "GraphcloakOutput", "Graphcloak", "GraphcloakX"}
	for _, o := range own {
		add(o, strings.ToLower(o), strings.ToUpper(o), " "+o, o+"s", o+":x")
	}
	add("graphCloakRun", "GRAPHCLOAKrun", "gRAPHCLOAKrUN", "Graphcloak_Run", "Graphcloak-Run", "Graphcloak Run")
	for _, p := range []string{"rhoSpent", "spent", "runId", "scope", "chargeId", "kind", "property", "status",
		"lockCount", "epoch", "valuesDigest", "parameters", "writeProperty", "key"} {
		add(p, strings.ToUpper(p))
	}

	// Lengths, emptiness, invalid UTF-8, wildcards.
	add("", " ", "  ", "\u00a0", "\u3000", "a", "1", "0", "-1", "1e9", "NaN", "true", "null",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65),
		strings.Repeat("é", 32), strings.Repeat("é", 33), strings.Repeat("a", 63)+"é",
		strings.Repeat("x", 1000), strings.Repeat("y", 70_000), strings.Repeat("`", 64),
		"\xff", "a\xfeb", "\xc3", "\xed\xa0\x80" /* a surrogate */, "\xc0\xaf", /* overlong / */
		"*", "a,b", ",a", "a,", "a,,b", "Raum_ü", "1ADJ", "TÜR-zu 1", "日本語", "🔥", "a b", "a-b", "a.b")

	// A few random combinations of the families above, deterministic.
	parts := []string{"`", `\u0060`, "'", `"`, "//", "/*", ";", "$p", "\n", "\u200b", "GraphcloakRun", "rhoSpent",
		" DETACH DELETE n ", ")", "}", "]", "MATCH (n)", "｀"}
	x := uint32(49)
	for len(c) < 440 {
		x = x*1664525 + 1013904223
		a, b, d := parts[x%uint32(len(parts))], parts[(x>>8)%uint32(len(parts))], parts[(x>>16)%uint32(len(parts))]
		add(fmt.Sprintf("n%s%s%s", a, b, d))
	}
	return c
}
