package main

import (
	"bufio"
	"io"
	"os"
	"strings"
)

// readNodeList reads one node key per line: surrounding spaces trimmed,
// blank lines and # comments skipped, duplicates refused.
func readNodeList(path string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, inputErrorf("--nodes: %w", err)
		}
		defer f.Close()
		r = f
	}
	var nodes []string
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		n := strings.TrimSpace(sc.Text())
		if n == "" || strings.HasPrefix(n, "#") {
			continue
		}
		if prev, dup := seen[n]; dup {
			return nil, inputErrorf("--nodes %s: node %q on lines %d and %d", path, n, prev, line)
		}
		seen[n] = line
		nodes = append(nodes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, inputErrorf("--nodes %s: %w", path, err)
	}
	if len(nodes) == 0 {
		return nil, inputErrorf("--nodes %s lists no node keys", path)
	}
	return nodes, nil
}
