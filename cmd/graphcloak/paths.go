package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/graphcloak/graphcloak/community"
	"github.com/graphcloak/graphcloak/config"
	"github.com/graphcloak/graphcloak/internal/inputfiles"
)

// One rule for every path a flag names: before a command does anything
// (loads a graph, opens a ledger, connects, charges), every file it was
// given is checked for the use it makes of it, and a path it cannot use is
// bad input (exit 3) in a sentence naming the flag, the path and the
// problem — a directory where a file is wanted, a file that is missing or
// cannot be read, an output whose directory does not exist. The deeper
// checks (a ledger's format, a key's mode) stay where the files are read.

// pathFlags are the flags that name a file, by name on every command, and
// how they are used. A spec flag (specPathFlags) names a file after
// "file:". TestPathFlagsAreClassified holds every flag whose help speaks of
// a file to this table or to notPathFlags, so a new one is checked (and
// covered by TestUnusablePathsExitBadInput) from its first commit.
var pathFlags = map[string]inputfiles.PathUse{
	"values":            inputfiles.ReadPath,
	"edges":             inputfiles.ReadPath,
	"key":               inputfiles.ReadPath,
	"ledger-key":        inputfiles.ReadPath,
	"release":           inputfiles.ReadPath,
	"released":          inputfiles.ReadPath,
	"sensitivity-cert":  inputfiles.ReadPath,
	"ledger":            inputfiles.KeptPath,
	"answer-cache":      inputfiles.KeptPath,
	"sensitivity-cache": inputfiles.KeptPath,
	"out":               inputfiles.WritePath,
	"save":              inputfiles.WritePath,
	"plot":              inputfiles.WritePath,
	"graph":             inputfiles.ReadPath, // file:PATH
	"communities":       inputfiles.ReadPath, // file:PATH
	"master":            inputfiles.ReadPath,
	"nodes":             inputfiles.ReadPath,
	"coordinator-key":   inputfiles.ReadPath,
	"order":             inputfiles.ReadPath,
	"value-file":        inputfiles.ReadPath,
	"odometer":          inputfiles.KeptPath, // sensor init creates it; sensor report refuses a missing one itself
	"policy":            inputfiles.ReadPath,
	"sensor-policy":     inputfiles.ReadPath,
	"mac-csv":           inputfiles.WritePath,
	"sensor-csv":        inputfiles.WritePath,
	"out-dir":           inputfiles.DirPath,
	"signing-key":       inputfiles.ReadPath,
	"mac-keys":          inputfiles.ReadPath,
	"reports":           inputfiles.ReadPath,
	"journal":           inputfiles.DirPath,
	"cache-dir":         inputfiles.DirPath,
	"release-out":       inputfiles.WritePath,
	"communities-out":   inputfiles.WritePath,
}

// specPathFlags name a file only in some of their values: --graph in a
// kind the graph-kinds table says names a file (file:edges.csv),
// --communities after "file:"; their other values are not paths.
var specPathFlags = map[string]bool{"graph": true, "communities": true}

// notPathFlags are flags whose help mentions files but which name none
// (per command: "" for every command).
var notPathFlags = map[string]map[string]bool{
	"communities": {"communities": true},            // the communities command's detector (leiden, louvain)
	"serve":       {"graph": true},                  // the database only
	"unmask":      {"graph": true},                  // the database only
	"":            {"config": true, "header": true}, // --config: read by config.Load, which refuses it (exit 3) before this check; --header: how CSV is read
}

// pathCheckExempt are commands that name files without opening them.
var pathCheckExempt = map[string]bool{"graphcloak config show": true}

// checkPaths checks every path flag cmd was given (or its configuration
// key set) against its use, before the command runs
// (inputfiles.CheckPaths): the files it reads first, then those it
// keeps, then its outputs, so that the first refusal names an input the
// command would have read first.
func checkPaths(cmd *cobra.Command, l *config.Loaded) error {
	if pathCheckExempt[cmd.CommandPath()] {
		return nil
	}
	var given []inputfiles.GivenPath
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if name, path, use, ok := flagPath(cmd, f, l); ok {
			if !specPathFlags[f.Name] { // a spec flag's name has its value (flagPath)
				name += " " + path
			}
			given = append(given, inputfiles.GivenPath{Name: name, Path: path, Use: use})
		}
	})
	return inputfiles.CheckPaths(given)
}

// flagPath is the path flag f names on cmd (the effective value of a
// configuration key: flag, environment or file; config.Loaded.FlagValue),
// with how it is used, or ok false when f names no file here.
func flagPath(cmd *cobra.Command, f *pflag.Flag, l *config.Loaded) (name, path string, use inputfiles.PathUse, ok bool) {
	use, ok = pathFlags[f.Name]
	if !ok || notPathFlags[cmd.Name()][f.Name] || notPathFlags[""][f.Name] {
		return "", "", 0, false
	}
	value := l.FlagValue(f)
	name = "--" + f.Name
	if specPathFlags[f.Name] {
		var p string
		var isFile bool
		if f.Name == "graph" { // a kind of the graph-kinds table that names a file (graphkinds.go)
			p, isFile = graphPath(value)
		} else {
			p, isFile = community.SpecKinds.PathOf(value)
		}
		if !isFile {
			return "", "", 0, false
		}
		name += " " + value // as the user typed it
		value = p
	}
	switch {
	case value == "" || value == "-": // unset; standard streams (checkStdio)
		return "", "", 0, false
	case f.Name == "ledger" && value == "neo4j":
		return "", "", 0, false
	}
	return name, value, use, true
}
