package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// argvResult is one command line's outcome in TestArgvBatch's output.
// Bytes, not strings: JSON strings would replace invalid UTF-8.
type argvResult struct {
	Args           [][]byte // the command line run, for the caller to check
	Code           int
	Stdout, Stderr []byte
}

// TestArgvBatch is a helper process of the integration tests, not a test
// of its own (as os/exec's TestHelperProcess): with ARGV_BATCH
// naming a file of command lines, each a JSON array of arguments on a
// line (each argument base64, as encoding/json writes a []byte: the
// arguments may be invalid UTF-8), it runs each one through runArgs — the binary's main without the
// process — and writes the command line, its exit code, stdout and
// stderr, a JSON object a line, to ARGV_BATCH_OUT. Thousands of command lines that are
// refused before connecting then cost one process, not thousands.
func TestArgvBatch(t *testing.T) {
	in, out := os.Getenv("ARGV_BATCH"), os.Getenv("ARGV_BATCH_OUT")
	if in == "" || out == "" {
		t.Skip("a helper process of the integration tests (ARGV_BATCH and ARGV_BATCH_OUT unset)")
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var results bytes.Buffer
	enc := json.NewEncoder(&results)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var raw [][]byte
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		args := make([]string, len(raw))
		for i, a := range raw {
			args[i] = string(a)
		}
		var so, se bytes.Buffer
		code := runArgs(context.Background(), args, &so, &se)
		if err := enc.Encode(argvResult{Args: raw, Code: code, Stdout: so.Bytes(), Stderr: se.Bytes()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, results.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}
