package config

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// TidyDefaults rewrites how help prints the defaults of fs's list flags:
// "0.5,1,2", as the flag is given, not pflag's
// "[0.500000,1.000000,2.000000]"; an empty default of a flag that is no
// list prints none (pflag prints "(default [])" for these).
func TidyDefaults(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		switch t := f.Value.Type(); {
		case f.DefValue == "[]" && t != "stringSlice" && t != "intSlice" && t != "stringArray":
			f.DefValue = ""
		default:
			f.DefValue = listDefault(f.DefValue)
		}
	})
}

// listDefault is a list flag's default "[a,b]" as "a,b", numbers in %g;
// "[]" stays (pflag reads it as no default); anything else is returned
// unchanged.
func listDefault(def string) string {
	inner, ok := strings.CutPrefix(def, "[")
	if !ok || def == "[]" {
		return def
	}
	if inner, ok = strings.CutSuffix(inner, "]"); !ok {
		return def
	}
	parts := strings.Split(inner, ",")
	for i, p := range parts {
		if x, err := strconv.ParseFloat(p, 64); err == nil {
			parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}
