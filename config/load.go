package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cast"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Options says where Load looks.
type Options struct {
	// File is an explicit config file (--config). Empty means the default
	// location, DefaultFile(), when it exists.
	File string
	// Flags are parsed command-line flags; only flags defined by AddFlags
	// are bound. Nil means none.
	Flags *pflag.FlagSet
	// NewFile: File may not exist yet (projection save creates it).
	NewFile bool
}

// Source says where a value came from.
type Source string

// Sources, highest precedence first.
const (
	FromFlag    Source = "flag"
	FromEnv     Source = "env"
	FromFile    Source = "file"
	FromDefault Source = "default"
	// FromProjection: set by the named projection of --projection.
	FromProjection Source = "projection"
)

// PasswordFlagWarning is the warning Load returns when --password is used.
const PasswordFlagWarning = "WARNING: --password is visible to other users in the process list; prefer GRAPHCLOAK_NEO4J_PASSWORD or the config file"

// Loaded is a configuration together with where each value came from.
type Loaded struct {
	Config
	// File is the config file read, "" if none.
	File string
	// Sources maps each dotted key to where its value came from.
	Sources map[string]Source
	// Warnings are messages for stderr (e.g. a password given as a flag).
	Warnings []string
	// Projections are the named projections saved in the config file.
	Projections map[string]NamedProjection
}

// DefaultFile is $XDG_CONFIG_HOME/graphcloak/config.yaml, or
// ~/.config/graphcloak/config.yaml when XDG_CONFIG_HOME is unset.
func DefaultFile() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "graphcloak", "config.yaml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "graphcloak", "config.yaml")
}

// Load merges defaults, the YAML config file, GRAPHCLOAK_* environment
// variables and flags, in increasing order of precedence:
//
//	flags > environment > config file > defaults
//
// It does not validate; call Validate once on the result.
func Load(opts Options) (*Loaded, error) {
	file := opts.File
	var data []byte
	if file != "" {
		b, err := os.ReadFile(file)
		if opts.NewFile && errors.Is(err, os.ErrNotExist) {
			b, err = nil, nil
		}
		if err != nil {
			return nil, &Error{Key: "config", Reason: "cannot read config file", Err: err}
		}
		data = b
	} else if def := DefaultFile(); def != "" {
		if b, err := os.ReadFile(def); err == nil {
			file, data = def, b
		}
	}
	l, err := load(data, opts.Flags)
	if err != nil {
		return nil, err
	}
	l.File = file
	l.Warnings = append(l.Warnings, unknownVariables(os.Environ())...)
	if err := l.applyNamedProjection(); err != nil {
		return nil, err
	}
	if file != "" && l.Sources["neo4j.password"] == FromFile && l.Neo4j.Password != "" {
		if st, err := os.Stat(file); err == nil && st.Mode().Perm()&0o077 != 0 {
			return nil, &Error{Key: "neo4j.password", Reason: fmt.Sprintf(
				"the config file %s holds the Neo4j password but group or others may read it (mode %04o); chmod 600 it, or give the password in GRAPHCLOAK_NEO4J_PASSWORD",
				file, st.Mode().Perm())}
		}
	}
	return l, nil
}

// load is Load on the bytes of a YAML file (nil: no file).
func load(yaml []byte, fs *pflag.FlagSet) (*Loaded, error) {
	v := viper.New()
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range keyTable {
		v.SetDefault(k.Name, k.Default)
		if err := v.BindEnv(k.Name, k.Env()); err != nil {
			return nil, &Error{Key: k.Name, Reason: "cannot bind environment", Err: err}
		}
	}
	if yaml != nil {
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(yaml)); err != nil {
			return nil, &Error{Key: "config", Reason: yamlProblem(err)}
		}
		if err := checkFileKeys(v); err != nil {
			return nil, err
		}
	}
	projections, err := parseProjections(yaml)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Sources: make(map[string]Source, len(keyTable)), Projections: projections}
	changed := map[string]bool{}
	if fs != nil {
		if err := bindFlags(v, fs, changed); err != nil {
			return nil, err
		}
		if f := fs.Lookup("password"); f != nil && f.Changed && len(f.Annotations[annotation]) == 1 {
			l.Warnings = append(l.Warnings, PasswordFlagWarning)
		}
	}
	for _, k := range keyTable {
		if err := assign(k, v.Get(k.Name), k.field(&l.Config)); err != nil {
			return nil, err
		}
		switch {
		case changed[k.Name]:
			l.Sources[k.Name] = FromFlag
		case os.Getenv(k.Env()) != "":
			l.Sources[k.Name] = FromEnv
		case yaml != nil && v.InConfig(k.Name):
			l.Sources[k.Name] = FromFile
		default:
			l.Sources[k.Name] = FromDefault
		}
	}
	return l, nil
}

// checkFileKeys refuses keys the file sets that graphcloak does not know:
// a misspelt key silently ignored is a wrong run.
func checkFileKeys(v *viper.Viper) error {
	var unknown []string
	for _, name := range v.AllKeys() {
		if strings.HasPrefix(name, projectionsKey+".") {
			continue // named projections: parseProjections checks them
		}
		if _, ok := keyByName(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return &Error{Key: "config", Reason: "unknown keys in config file: " + strings.Join(unknown, ", ")}
	}
	return nil
}

// bindFlags binds every flag of fs annotated with a key to that key in v
// and marks in changed the keys whose flag was given.
func bindFlags(v *viper.Viper, fs *pflag.FlagSet, changed map[string]bool) error {
	var bindErr error
	fs.VisitAll(func(f *pflag.Flag) {
		names := f.Annotations[annotation]
		if len(names) != 1 {
			return
		}
		if err := v.BindPFlag(names[0], f); err != nil && bindErr == nil {
			bindErr = &Error{Key: names[0], Reason: "cannot bind flag", Err: err}
		}
		if f.Changed {
			changed[names[0]] = true
		}
	})
	return bindErr
}

// assign converts a raw value (from YAML, environment or a flag) to the
// field's type. Errors never include the value of a secret key.
func assign(k Key, raw any, dst any) error {
	bad := func(want string) error {
		if k.Secret {
			return &Error{Key: k.Name, Reason: "must be " + want}
		}
		return &Error{Key: k.Name, Reason: fmt.Sprintf("must be %s, got %v", want, raw)}
	}
	switch p := dst.(type) {
	case *string:
		switch raw.(type) {
		case map[string]any, []any, []string:
			return bad("a string")
		}
		s, err := cast.ToStringE(raw)
		if err != nil {
			return bad("a string")
		}
		*p = s
	case *[]string:
		out, ok := toNames(raw)
		if !ok {
			return bad("a list of names")
		}
		*p = out
	case *bool:
		b, err := cast.ToBoolE(raw)
		if _, isNumber := raw.(int); err != nil || isNumber {
			return bad("true or false")
		}
		*p = b
	case *int, *int64:
		f, err := toFloat(raw)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return bad("an integer")
		}
		if pi, ok := p.(*int); ok {
			*pi = int(f)
		} else {
			*p.(*int64) = int64(f)
		}
	case *float64:
		if str, ok := raw.(string); ok && k.Seconds {
			f, err := ParseSeconds(str)
			if err != nil {
				return bad("seconds or a duration (15s)")
			}
			*p = f
			return nil
		}
		f, err := toFloat(raw)
		if err != nil {
			return bad("a number")
		}
		*p = f
	default:
		panic(fmt.Sprintf("config: unsupported field type %T", dst))
	}
	return nil
}

// toNames converts a raw list of names: a comma-separated string (blank
// names dropped), a []string, a YAML list of scalars or nil; ok is false
// for anything else.
func toNames(raw any) (out []string, ok bool) {
	switch r := raw.(type) {
	case string:
		for _, s := range strings.Split(r, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, r...)
	case []any:
		for _, e := range r {
			switch e.(type) {
			case map[string]any, []any:
				return nil, false
			}
			s, err := cast.ToStringE(e)
			if err != nil {
				return nil, false
			}
			out = append(out, s)
		}
	case nil:
	default:
		return nil, false
	}
	return out, true
}

func toFloat(raw any) (float64, error) {
	switch r := raw.(type) {
	case bool, map[string]any, []any, []string, nil:
		return 0, errors.New("not a number")
	case string:
		return cast.ToFloat64E(strings.TrimSpace(r))
	}
	return cast.ToFloat64E(raw)
}

// yamlProblem describes a YAML error by its line only: the parser's
// message quotes the file, which may be a key or hold a password.
func yamlProblem(err error) string {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return "the config file is not valid YAML (line " + m[1] + ") or not a mapping of the documented keys"
	}
	return "the config file is not valid YAML or not a mapping of the documented keys"
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// otherVariables are GRAPHCLOAK_* variables that are not configuration
// keys but are read by graphcloak (GRAPHCLOAK_DATASETS, the store's bound
// GRAPHCLOAK_CACHE_MAX) or by the
// project's scripts and tests; they are never warned about.
var otherVariables = map[string]bool{
	"GRAPHCLOAK_DATASETS": true, "GRAPHCLOAK_CACHE_MAX": true, "GRAPHCLOAK_FIGURES_DIR": true, "GRAPHCLOAK_JAVA": true, "GRAPHCLOAK_MEM": true,
	"GRAPHCLOAK_NEO4J_HEAP": true, "GRAPHCLOAK_NEO4J_PAGECACHE": true, "GRAPHCLOAK_NEO4J_PROVIDER": true,
	"GRAPHCLOAK_NEO4J_START_TIMEOUT": true, "GRAPHCLOAK_NEO4J_WATCH_PID": true, "GRAPHCLOAK_REQUIRE_NEO4J": true,
	"GRAPHCLOAK_NEO4J_DIR": true, "GRAPHCLOAK_NEO4J_NO_PLUGIN": true, "GRAPHCLOAK_NEO4J_PLUGIN": true,
	"GRAPHCLOAK_NEO4J_PLUGINS": true, "GRAPHCLOAK_NEO4J_UNRESTRICTED": true,
	"GRAPHCLOAK_REQUIRE_SLURM": true, "GRAPHCLOAK_SLURM_DIR": true, "GRAPHCLOAK_SLURM_START_TIMEOUT": true,
	"GRAPHCLOAK_TEST_FLAGS": true, "GRAPHCLOAK_PROGRESS_PERIOD": true, "GRAPHCLOAK_CHECKPOINT_PERIOD": true, "GRAPHCLOAK_LEDGER_HELPER": true, "GRAPHCLOAK_LEDGER_PROC": true, "GRAPHCLOAK_LEDGER_RHO": true,
}

// unknownVariables warns about GRAPHCLOAK_* variables that set nothing: a
// misspelt variable silently ignored is a wrong run, as a misspelt key in
// the config file is (that one is refused; a variable may be meant for
// another version, so it is warned about).
func unknownVariables(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") || otherVariables[name] {
			continue
		}
		known, best, bestD := false, "", 3
		for _, k := range keyTable {
			if k.Env() == name {
				known = true
				break
			}
			if d := editDistance(name, k.Env()); d < bestD {
				best, bestD = k.Env(), d
			}
		}
		if known {
			continue
		}
		w := "WARNING: " + name + " is not a graphcloak variable and is ignored"
		if best != "" {
			w += "; did you mean " + best + "?"
		} else {
			w += " (graphcloak config show lists every variable)"
		}
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance of a and b (bytes): how
// graphcloak finds the name a misspelt variable or flag meant.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
