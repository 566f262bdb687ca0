package service

import (
	"context"
	"errors"
	"testing"

	"github.com/graphcloak/graphcloak/connector"
)

// A probe that cannot connect says why and connects again at the next
// check, never keeping a failed connection; closing a probe that never
// connected is harmless.
func TestDatabaseProbeReconnects(t *testing.T) {
	refused := errors.New("connection refused")
	calls := 0
	p := &DatabaseProbe{Database: "neo4j", Connect: func(context.Context) (*connector.Client, error) {
		calls++
		return nil, refused
	}}
	for i := 1; i <= 2; i++ {
		if err := p.Ping(context.Background()); !errors.Is(err, refused) {
			t.Fatalf("check %d: %v, want the connection's error", i, err)
		}
		if calls != i {
			t.Fatalf("check %d connected %d times", i, calls)
		}
	}
	p.Close()
}
