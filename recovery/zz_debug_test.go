package recovery

import (
	"context"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
)

func TestZZDebug(t *testing.T) {
	g, _ := laplacian.PreferentialAttachment(300, 2, 3)
	p, err := needsPrecise(g, 1, 0.01)
	t.Log("probe", p, err)
	want, passes := twoPassCertifier(t, g, 1, CertifierOptions{})
	t.Log("old passes", passes, want.Precise(), minOf(want.norm), want.eta)
	got, err := NewCertifier(context.Background(), g, 1, CertifierOptions{})
	t.Log("new", got.Precise(), err)
	act, _ := action(g, 1, 0.01, false)
	t.Logf("%T", act)
}
