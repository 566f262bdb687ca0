package sensitivity

import "github.com/graphcloak/graphcloak/expm"

// MethodNames are the names MethodByName knows, in the order a user is
// told them.
var MethodNames = []string{"auto", "dense", "sparse", "columns", "lanczos", "slow-modes", "panels", "gram"}

// MethodByName maps a method's name to the dense/sparse choice and the
// sparse scheme: sparse lets the plan pick the scheme, columns, lanczos,
// slow-modes, panels and gram force one. ok is false for a name not in
// MethodNames.
func MethodByName(name string) (method expm.Method, scheme Scheme, ok bool) {
	switch name {
	case "auto":
		return expm.Auto, SchemeAuto, true
	case "dense":
		return expm.Dense, SchemeAuto, true
	case "sparse":
		return expm.Sparse, SchemeAuto, true
	case "columns":
		return expm.Sparse, SchemeColumns, true
	case "lanczos":
		return expm.Sparse, SchemeLanczos, true
	case "slow-modes":
		return expm.Sparse, SchemeSlowModes, true
	case "panels":
		return expm.Sparse, SchemePanels, true
	case "gram":
		return expm.Sparse, SchemeGram, true
	}
	return expm.Auto, SchemeAuto, false
}
