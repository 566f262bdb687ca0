package config

import "github.com/spf13/pflag"

// FlagValue is f's effective value: for a flag bound to a configuration
// key (AddFlags), the key's value wherever it was set — flag,
// environment or file — ("" when it is not text); for any other flag, or
// a nil l, the flag's own.
func (l *Loaded) FlagValue(f *pflag.Flag) string {
	value := f.Value.String()
	if key := f.Annotations[annotation]; len(key) == 1 && l != nil {
		for _, e := range l.Entries() {
			if e.Key == key[0] {
				value, _ = e.Value.(string)
			}
		}
	}
	return value
}
