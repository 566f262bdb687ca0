package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphcloak/graphcloak/answer"
)

// TestAuditShardOrCertificate: a shard's report names its part and what
// to do next, and no classes; a whole pass's names its certificate and
// classes, and no next step.
func TestAuditShardOrCertificate(t *testing.T) {
	for _, shard := range []string{"1/4", ""} {
		var b bytes.Buffer
		Audit(&b, answer.AuditReport{Graph: "karate", NodeCount: 34, Tau: 1, Shard: shard, Classes: 30, Save: "a.json"}, "merge them")
		out := b.String()
		if strings.Count(out, "\n") != 1 {
			t.Errorf("shard %q: want one line:\n%s", shard, out)
		}
		isShard := shard != ""
		if strings.Contains(out, "saved part a.json") != isShard || strings.HasSuffix(out, "next: merge them\n") != isShard {
			t.Errorf("shard %q: part or next step wrong:\n%s", shard, out)
		}
		if strings.Contains(out, "30 classes") == isShard || strings.Contains(out, "certificate a.json") == isShard {
			t.Errorf("shard %q: classes or certificate wrong:\n%s", shard, out)
		}
	}
}
