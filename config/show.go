package config

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Shown is the effective configuration as config show reports it: the
// file read, the configuration with its secrets redacted, and every key
// with where its value came from.
type Shown struct {
	File    string  `json:"file"`
	Config  Config  `json:"config"`
	Entries []Entry `json:"entries"`
}

// Shown is l as config show reports it (redacted).
func (l *Loaded) Shown() Shown {
	return Shown{File: l.File, Config: l.Redacted(), Entries: l.Entries()}
}

// WriteText writes s as a table: the file (or the default location when
// none was read), then each key with its value (lists joined by commas),
// source, environment variable and flag.
func (s Shown) WriteText(out io.Writer) error {
	file := s.File
	if file == "" {
		file = "(none; default location " + DefaultFile() + ")"
	}
	fmt.Fprintf(out, "config file: %s\n\n", file)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\tENV\tFLAG")
	for _, e := range s.Entries {
		v := fmt.Sprint(e.Value)
		if list, ok := e.Value.([]string); ok {
			v = strings.Join(list, ",")
		}
		flag := ""
		if e.Flag != "" {
			flag = "--" + e.Flag
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Key, v, e.Source, e.Env, flag)
	}
	return tw.Flush()
}
