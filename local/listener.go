package local

import (
	"net"
	"sync"
)

// DefaultMaxConnections is how many connections a collector's listener
// holds open at once (LimitListener).
const DefaultMaxConnections = 256

// LimitListener returns a listener that holds at most n connections open
// at once: Accept waits while n are open (further clients wait in the
// kernel's backlog), so that slow or idle clients cannot take more than n
// of the process's file descriptors and goroutines. With the server's
// read deadlines each slot is freed in bounded time. n < 1 means 1.
func LimitListener(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, max(n, 1)), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	closeOnce sync.Once
	done      chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
