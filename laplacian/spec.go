package laplacian

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphcloak/graphcloak/internal/csvin"
)

// Spec is a parsed graph specification, the CLI's way of naming a graph:
//
//	sbm:sizes=250x250,pin=0.05,pout=0.001,seed=7
//	grid:rows=20,cols=20
//	path:n=100   cycle:n=100   complete:n=50   star:n=50
//	pa:n=100000,m=10,seed=1        (preferential attachment, PreferentialAttachment)
//	rgg:n=100000,radius=0.008,seed=1 (random geometric, RandomGeometric)
//	karate
//	file:PATH    (a CSV edge list, see ReadCSV)
//
// Parameters are comma-separated name=value pairs in any order; names and
// kinds are case-insensitive and spaces around them are ignored. sbm needs
// sizes and pin; pout is required when there are two or more blocks and
// defaults to 0 for one block; seed defaults to 1 (for sbm, pa and rgg). Everything after
// "file:" is the path (trimmed of surrounding spaces), so it may contain
// commas and colons.
type Spec struct {
	Kind   string  // "sbm", "grid", "path", "cycle", "complete", "star", "pa", "rgg", "karate" or "file"
	Sizes  []int   // sbm block sizes
	PIn    float64 // sbm within-block edge probability
	POut   float64 // sbm between-block edge probability
	Seed   uint64  // sbm, pa, rgg seed
	Rows   int     // grid
	Cols   int     // grid
	N      int     // path, cycle, complete, star, pa, rgg: number of nodes
	M      int     // pa: edges per added node
	Radius float64 // rgg: connection radius in the unit square
	Path   string  // file
	// Header says whether a file's first row is a header (--header).
	Header csvin.Header
	// Duplicates says what a pair a file lists more than once means
	// (Options.Duplicates; --duplicate-edges).
	Duplicates DuplicateRule
}

// Errors wrapped by SpecError.
var (
	ErrUnknownKind  = errors.New("unknown graph kind (want sbm, grid, path, cycle, complete, star, pa, rgg, karate or file)")
	ErrUnknownParam = errors.New("unknown parameter")
	ErrMissingParam = errors.New("missing parameter")
	ErrBadValue     = errors.New("bad value")
)

// SpecError reports an invalid graph spec, naming the parameter ("" when
// the problem is the kind or the syntax).
type SpecError struct {
	Spec  string
	Param string
	Err   error
}

func (e *SpecError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "laplacian: ")
	if e.Param == "" {
		return fmt.Sprintf("laplacian: graph spec %q: %s", e.Spec, msg)
	}
	return fmt.Sprintf("laplacian: graph spec %q: parameter %s: %s", e.Spec, e.Param, msg)
}
func (e *SpecError) Unwrap() error { return e.Err }

// badValue wraps a generator's *SizeError as an ErrBadValue.
type badValue struct{ err error }

func (b badValue) Error() string {
	return ErrBadValue.Error() + ": " + strings.TrimPrefix(b.err.Error(), "laplacian: ")
}
func (b badValue) Unwrap() []error { return []error{ErrBadValue, b.err} }

// specParams lists each kind's parameters in canonical order.
var specParams = map[string][]string{
	"sbm":      {"sizes", "pin", "pout", "seed"},
	"grid":     {"rows", "cols"},
	"path":     {"n"},
	"cycle":    {"n"},
	"complete": {"n"},
	"star":     {"n"},
	"pa":       {"n", "m", "seed"},
	"rgg":      {"n", "radius", "seed"},
	"karate":   nil,
}

// SpecKinds returns the kinds ParseSpec reads, sorted ("file" among them).
func SpecKinds() []string {
	kinds := []string{"file"}
	for k := range specParams {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// ParseSpec parses and validates a graph spec (see Spec). Errors are
// *SpecError values naming the spec and the parameter.
func ParseSpec(s string) (Spec, error) {
	orig := s
	s = strings.TrimSpace(s)
	kind, rest, hasParams := strings.Cut(s, ":")
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind == "file" {
		path := strings.TrimSpace(rest)
		if path == "" {
			return Spec{}, &SpecError{orig, "path", fmt.Errorf("%w: file: needs a path", ErrMissingParam)}
		}
		return Spec{Kind: "file", Path: path}, nil
	}
	names, ok := specParams[kind]
	if !ok {
		return Spec{}, &SpecError{orig, "", fmt.Errorf("%w: %q", ErrUnknownKind, kind)}
	}
	pv := specValues{spec: orig, values: map[string]string{}}
	if hasParams && strings.TrimSpace(rest) != "" {
		if err := pv.parse(kind, rest, names); err != nil {
			return Spec{}, err
		}
	}
	sp, err := pv.build(kind)
	if err != nil {
		return Spec{}, err
	}
	if err := sp.validate(orig); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// specValues holds the name=value parameters of one spec.
type specValues struct {
	spec   string // the spec as given, for errors
	values map[string]string
}

func (pv specValues) fail(param string, err error) error {
	return &SpecError{Spec: pv.spec, Param: param, Err: err}
}

// parse reads the comma-separated name=value list of a spec of the given
// kind, refusing unknown and repeated names.
func (pv specValues) parse(kind, list string, names []string) error {
	for _, kv := range strings.Split(list, ",") {
		name, val, ok := strings.Cut(kv, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		val = strings.TrimSpace(val)
		if !ok || name == "" {
			return pv.fail(name, fmt.Errorf("%w: %q is not name=value", ErrBadValue, strings.TrimSpace(kv)))
		}
		if !slices.Contains(names, name) {
			return pv.fail(name, fmt.Errorf("%w for %s (want %s)", ErrUnknownParam, kind, wantList(names)))
		}
		if _, dup := pv.values[name]; dup {
			return pv.fail(name, fmt.Errorf("%w: given twice", ErrBadValue))
		}
		pv.values[name] = val
	}
	return nil
}

// build turns the parameters into a Spec of the given kind.
func (pv specValues) build(kind string) (Spec, error) {
	sp := Spec{Kind: kind}
	var err error
	switch kind {
	case "sbm":
		err = pv.sbm(&sp)
	case "grid":
		if err = pv.count("rows", &sp.Rows); err == nil {
			err = pv.count("cols", &sp.Cols)
		}
	case "path", "cycle", "complete", "star":
		err = pv.count("n", &sp.N)
	case "pa":
		if err = pv.count("n", &sp.N); err == nil {
			err = pv.count("m", &sp.M)
		}
	case "rgg":
		if err = pv.count("n", &sp.N); err == nil {
			err = pv.radius(&sp.Radius)
		}
	}
	if err != nil {
		return Spec{}, err
	}
	if kind == "sbm" || kind == "pa" || kind == "rgg" {
		if err := pv.seed(&sp.Seed); err != nil {
			return Spec{}, err
		}
	}
	return sp, nil
}

// sbm reads sizes=AxB…, pin and (required with more than one block) pout.
func (pv specValues) sbm(sp *Spec) error {
	v, ok := pv.values["sizes"]
	if !ok {
		return pv.fail("sizes", ErrMissingParam)
	}
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == 'x' || r == 'X' }) {
		x, e := strconv.Atoi(strings.TrimSpace(f))
		if e != nil || x < 1 {
			return pv.fail("sizes", fmt.Errorf("%w: %q: each block size must be a positive integer (e.g. 250x250)", ErrBadValue, v))
		}
		sp.Sizes = append(sp.Sizes, x)
	}
	if len(sp.Sizes) == 0 || strings.Count(strings.ToLower(v), "x") != len(sp.Sizes)-1 {
		return pv.fail("sizes", fmt.Errorf("%w: %q: want block sizes like 250x250", ErrBadValue, v))
	}
	if err := pv.prob("pin", &sp.PIn); err != nil {
		return err
	}
	if _, ok := pv.values["pout"]; ok || len(sp.Sizes) > 1 {
		return pv.prob("pout", &sp.POut)
	}
	return nil
}

// count reads a required non-negative integer.
func (pv specValues) count(name string, dst *int) error {
	v, ok := pv.values[name]
	if !ok {
		return pv.fail(name, ErrMissingParam)
	}
	x, err := strconv.Atoi(v)
	if err != nil || x < 0 {
		return pv.fail(name, fmt.Errorf("%w: %q is not a non-negative integer", ErrBadValue, v))
	}
	*dst = x
	return nil
}

// prob reads a required probability in [0, 1].
func (pv specValues) prob(name string, dst *float64) error {
	v, ok := pv.values[name]
	if !ok {
		return pv.fail(name, ErrMissingParam)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return pv.fail(name, fmt.Errorf("%w: %q is not a probability in [0, 1]", ErrBadValue, v))
	}
	*dst = x
	return nil
}

// radius reads the required positive radius of rgg.
func (pv specValues) radius(dst *float64) error {
	v, ok := pv.values["radius"]
	if !ok {
		return pv.fail("radius", ErrMissingParam)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x > 0) {
		return pv.fail("radius", fmt.Errorf("%w: %q is not a positive number", ErrBadValue, v))
	}
	*dst = x
	return nil
}

// seed reads the optional seed of the random generators (default 1).
func (pv specValues) seed(dst *uint64) error {
	*dst = 1
	v, ok := pv.values["seed"]
	if !ok {
		return nil
	}
	x, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return pv.fail("seed", fmt.Errorf("%w: %q is not an unsigned integer", ErrBadValue, v))
	}
	*dst = x
	return nil
}

func wantList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// validate checks sizes with the generators' own rules, turning a
// *SizeError into a *SpecError naming the parameter.
func (s Spec) validate(name string) error {
	var err error
	switch s.Kind {
	case "sbm":
		err = checkSBM(s.Sizes, s.PIn, s.POut)
	case "grid":
		err = checkGrid(s.Rows, s.Cols)
	case "path", "cycle", "complete", "star":
		err = checkGen(s.Kind, s.N)
	case "pa":
		err = checkPA(s.N, s.M)
	case "rgg":
		err = checkRGG(s.N, s.Radius)
	case "karate":
	case "file":
		if s.Path == "" {
			return &SpecError{name, "path", ErrMissingParam}
		}
	default:
		return &SpecError{name, "", fmt.Errorf("%w: %q", ErrUnknownKind, s.Kind)}
	}
	var se *SizeError
	if !errors.As(err, &se) {
		return err
	}
	param := se.Param
	switch {
	case s.Kind == "sbm" && param != "pin" && param != "pout":
		param = "sizes" // blocks, sizes, n, edges
	case s.Kind == "grid" && param == "edges":
		param = "rows×cols"
	case s.Kind == "rgg" && param == "edges":
		param = "radius"
	case param == "edges":
		param = "n"
	}
	return &SpecError{name, param, badValue{err}}
}

// String returns the canonical form of the spec: lower-case kind, every
// parameter (defaults included) in a fixed order, shortest round-trip
// float formatting. ParseSpec(s.String()) reproduces s.
func (s Spec) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch s.Kind {
	case "sbm":
		sz := make([]string, len(s.Sizes))
		for i, x := range s.Sizes {
			sz[i] = strconv.Itoa(x)
		}
		return fmt.Sprintf("sbm:sizes=%s,pin=%s,pout=%s,seed=%d", strings.Join(sz, "x"), f(s.PIn), f(s.POut), s.Seed)
	case "grid":
		return fmt.Sprintf("grid:rows=%d,cols=%d", s.Rows, s.Cols)
	case "path", "cycle", "complete", "star":
		return fmt.Sprintf("%s:n=%d", s.Kind, s.N)
	case "pa":
		return fmt.Sprintf("pa:n=%d,m=%d,seed=%d", s.N, s.M, s.Seed)
	case "rgg":
		return fmt.Sprintf("rgg:n=%d,radius=%s,seed=%d", s.N, f(s.Radius), s.Seed)
	case "karate":
		return "karate"
	case "file":
		return "file:" + s.Path
	}
	return s.Kind
}

// Build generates (or, for file, loads) the graph. The partition is the
// planted block of each node for sbm, the faction for karate, and nil for
// the other kinds. Invalid parameters give a *SpecError; a file's errors
// are those of LoadCSV (*CSVError).
func (s Spec) Build() (*Graph, []int, error) {
	if err := s.validate(s.String()); err != nil {
		return nil, nil, err
	}
	var g *Graph
	var err error
	switch s.Kind {
	case "sbm":
		return SBM(s.Sizes, s.PIn, s.POut, s.Seed)
	case "grid":
		g, err = Grid(s.Rows, s.Cols)
	case "path":
		g, err = Path(s.N)
	case "cycle":
		g, err = Cycle(s.N)
	case "complete":
		g, err = Complete(s.N)
	case "star":
		g, err = Star(s.N)
	case "pa":
		g, err = PreferentialAttachment(s.N, s.M, s.Seed)
	case "rgg":
		g, _, err = RandomGeometric(s.N, s.Radius, s.Seed)
	case "karate":
		g, part := Karate()
		return g, part, nil
	case "file":
		g, err = LoadCSV(s.Path, Options{Header: s.Header, Duplicates: s.Duplicates})
	}
	return g, nil, err
}

// Generate parses spec and builds the graph: ParseSpec followed by Build.
func Generate(spec string) (*Graph, []int, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	return s.Build()
}
