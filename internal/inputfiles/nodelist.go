package inputfiles

import (
	"bufio"
	"io"
	"os"
	"strings"

	"github.com/graphcloak/graphcloak/errkind"
)

// ParamNodes is the node list a local release's keys and epoch are for.
const ParamNodes errkind.Param = "node list"

// ReadNodeList reads one node key per line from path ("-": stdin):
// surrounding spaces trimmed, blank lines and # comments skipped,
// duplicates refused.
func ReadNodeList(path string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, errkind.Inputf("%s: %w", ParamNodes, err)
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
			return nil, errkind.Inputf("%s %s: node %q on lines %d and %d", ParamNodes, path, n, prev, line)
		}
		seen[n] = line
		nodes = append(nodes, n)
	}
	if err := sc.Err(); err != nil {
		return nil, errkind.Inputf("%s %s: %w", ParamNodes, path, err)
	}
	if len(nodes) == 0 {
		return nil, errkind.Inputf("%s %s lists no node keys", ParamNodes, path)
	}
	return nodes, nil
}
