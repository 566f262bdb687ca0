package stores

import "strings"

// Describe says what a graph spec may name, from the table, as help
// writes it: "neo4j (the configured projection), a generator (karate,
// sbm:…, …), file:PATH (a CSV edge list) or gt:NAME (…)" — the database
// first, then the generators, then the rest in the table's order; with
// generatorsOnly, "a generator (karate, sbm:…, …)".
func (t GraphKindTable) Describe(generatorsOnly bool) string {
	var db, gens, others []string
	for _, k := range t {
		switch {
		case k.Generator && k.Syntax == k.Name: // no parameters: karate
			gens = append(gens, k.Name)
		case k.Generator:
			gens = append(gens, k.Name+":…")
		case k.Database:
			db = append(db, k.Syntax+" ("+k.About+")")
		default:
			others = append(others, k.Syntax+" ("+k.About+")")
		}
	}
	gen := "a generator (" + strings.Join(gens, ", ") + ")"
	if generatorsOnly {
		return gen
	}
	kinds := append(append(db, gen), others...)
	return strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
}

// Completions are what shell completion offers for the kinds keep
// accepts, in the table's order.
func (t GraphKindTable) Completions(keep func(GraphKind) bool) []string {
	var out []string
	for _, k := range t {
		if keep(k) {
			out = append(out, k.Complete)
		}
	}
	return out
}

// PathKind is the table's kind that names a local file (file:PATH); the
// zero GraphKind when there is none.
func (t GraphKindTable) PathKind() GraphKind {
	for _, k := range t {
		if k.Path {
			return k
		}
	}
	return GraphKind{}
}
