package config

import (
	"testing"

	"github.com/graphcloak/graphcloak/errkind"
	"github.com/spf13/pflag"
)

// "-" is a stream only where the command says so; for any other file flag
// it is a usage error naming the flag and the command; flags not naming
// files, unset or other values pass.
func TestCheckStdio(t *testing.T) {
	files := []string{"out", "values", "ledger"}
	for _, c := range []struct {
		args    []string
		streams map[string]bool
		refused string
	}{
		{[]string{"--values", "-", "--out", "-"}, map[string]bool{"values": true, "out": true}, ""},
		{[]string{"--values", "-"}, map[string]bool{"out": true}, "--values -: graphcloak x --values needs a file here, not standard input or output"},
		{[]string{"--ledger", "-", "--values", "-"}, map[string]bool{"values": true}, "--ledger -: graphcloak x --ledger needs a file here, not standard input or output"},
		{[]string{"--ledger", "l.json", "--tag", "-"}, nil, ""},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		for _, n := range append(files, "tag") {
			fs.String(n, "", "")
		}
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := CheckStdio(fs, "graphcloak x", files, c.streams)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.refused != "" && (err == nil || err.Error() != c.refused || errkind.Of(err) != errkind.Usage):
			t.Errorf("%v: %v, want usage %q", c.args, err, c.refused)
		}
	}
}
