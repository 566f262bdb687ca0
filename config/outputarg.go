package config

import "strings"

// OutputArg finds the output format (-o/--output) in raw command-line
// arguments, without parsing them: flag parsing stops at the first bad
// flag, so "--frob -o json" never parses -o, yet its error must be
// reported in the format "-o json --frob" gets. The last occurrence wins,
// as in parsing; nothing after "--" is a flag.
func OutputArg(args []string) (string, bool) {
	val, found := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return val, found
		case a == "-o" || a == "--output":
			if i+1 < len(args) {
				val, found = args[i+1], true
				i++
			}
		case strings.HasPrefix(a, "--output="):
			val, found = strings.TrimPrefix(a, "--output="), true
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			val, found = strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "="), true
		}
	}
	return val, found
}
