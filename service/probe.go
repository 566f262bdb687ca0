package service

import (
	"context"
	"sync"

	"github.com/graphcloak/graphcloak/connector"
)

// DatabaseProbe is /healthz's check of the database (Health.Probe): one
// client, kept between checks (connected again after a failure to
// connect), and a read of Database.
type DatabaseProbe struct {
	// Connect connects to the database.
	Connect  func(ctx context.Context) (*connector.Client, error)
	Database string

	mu     sync.Mutex
	client *connector.Client
}

// Ping connects when not connected, then reads from the database.
func (p *DatabaseProbe) Ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		c, err := p.Connect(ctx)
		if err != nil {
			return err
		}
		p.client = c
	}
	return p.client.Ping(ctx, p.Database)
}

// Close releases the probe's connection.
func (p *DatabaseProbe) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		_ = p.client.Close(context.Background())
		p.client = nil
	}
}
