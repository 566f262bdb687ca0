package shellquote

import (
	"os/exec"
	"testing"
)

// TestQuote: plain words stay as they are; anything else is single-quoted,
// and a POSIX shell reads every quoted word back as the word itself.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ledger.json", "ledger.json"},
		{"/var/lib/graphcloak/ledger-7.json", "/var/lib/graphcloak/ledger-7.json"},
		{"~/state/a+b=c@d:e", "~/state/a+b=c@d:e"},
		{"", "''"},
		{"my ledger.json", "'my ledger.json'"},
		{"it's", `'it'\''s'`},
		{"$HOME/x", "'$HOME/x'"},
		{"é", "'é'"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to read the words back")
	}
	for _, w := range []string{"", "a b", "it's", `"$x" \ ; *`, "tab\there"} {
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("sh read %q back as %q (%v)", w, out, err)
		}
	}
}
