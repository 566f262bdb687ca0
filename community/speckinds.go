package community

import "strings"

// SpecKind is one row of the communities-kinds table (SpecKinds): a way
// a --communities spec names a partition. The commands' help, shell
// completion, path check and parsers all read the table; a new kind is a
// new row (and, where it is computed or read, its loader in stores).
type SpecKind struct {
	// Name is the spec's text before ":" ("leiden", "gds", "file"); Arg
	// the text after it when the row fixes it ("leiden" in gds:leiden),
	// "" when the spec gives it (file:PATH) or has none (leiden).
	Name, Arg string
	// Syntax is the spec as help writes it ("gds:leiden", "file:PATH"),
	// Complete what shell completion offers ("gds:leiden", "file:") and
	// About what it is ("CSV node,community").
	Syntax, Complete, About string
	// Detect: graphcloak computes it (the communities command's
	// detectors, with --resolution). Database: it needs --graph neo4j.
	// Path: the spec's argument is a local file.
	Detect, Database, Path bool
	// Located: locate, release and serve read it. Scored: a simulation
	// (plan, experiment) scores against it.
	Located, Scored bool
}

// SpecKindTable is the table's type; its methods read a spec.
type SpecKindTable []SpecKind

// SpecKinds is the table, in the order help and completion list it. Read
// it; never change it.
var SpecKinds = SpecKindTable{
	{Name: "leiden", Syntax: "leiden", Complete: "leiden", About: "computed", Detect: true, Located: true, Scored: true},
	{Name: "louvain", Syntax: "louvain", Complete: "louvain", About: "computed", Detect: true, Located: true, Scored: true},
	{Name: "gds", Arg: "leiden", Syntax: "gds:leiden", Complete: "gds:leiden", About: "Neo4j GDS", Database: true, Located: true},
	{Name: "gds", Arg: "louvain", Syntax: "gds:louvain", Complete: "gds:louvain", About: "Neo4j GDS", Database: true, Located: true},
	{Name: "property", Syntax: "property:NAME", Complete: "property:", About: "a node property in Neo4j", Database: true, Located: true, Scored: true},
	{Name: "file", Syntax: "file:PATH", Complete: "file:", About: "CSV node,community", Path: true, Located: true, Scored: true},
	{Name: "planted", Syntax: "planted", Complete: "planted", About: "the generator's", Scored: true},
}

// Of returns the row of spec and the spec's argument (the file of
// file:PATH, the property of property:NAME); false when no row names it.
func (t SpecKindTable) Of(spec string) (SpecKind, string, bool) {
	name, arg, colon := strings.Cut(spec, ":")
	for _, k := range t {
		switch {
		case name != k.Name:
		case k.Arg != "" && arg == k.Arg:
			return k, arg, true
		case k.Arg == "" && strings.Contains(k.Syntax, ":") && arg != "":
			return k, arg, true
		case k.Arg == "" && !strings.Contains(k.Syntax, ":") && !colon:
			return k, "", true
		}
	}
	return SpecKind{}, "", false
}

// PathOf returns the local file spec names when its row is a Path kind.
func (t SpecKindTable) PathOf(spec string) (string, bool) {
	k, arg, ok := t.Of(spec)
	return arg, ok && k.Path
}

// Describe lists the rows use accepts as help writes them ("leiden
// (computed), …, or file:PATH (CSV node,community)").
func (t SpecKindTable) Describe(use func(SpecKind) bool) string {
	return t.list(use, func(k SpecKind) string { return k.Syntax + " (" + k.About + ")" })
}

// Names lists the rows use accepts as a refusal names them ("leiden,
// louvain, …, or file:PATH").
func (t SpecKindTable) Names(use func(SpecKind) bool) string {
	return t.list(use, func(k SpecKind) string { return k.Syntax })
}

func (t SpecKindTable) list(use func(SpecKind) bool, label func(SpecKind) string) string {
	var parts []string
	for _, k := range t {
		if use(k) {
			parts = append(parts, label(k))
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Completions are what shell completion offers for the rows use accepts.
func (t SpecKindTable) Completions(use func(SpecKind) bool) []string {
	var out []string
	for _, k := range t {
		if use(k) {
			out = append(out, k.Complete)
		}
	}
	return out
}
