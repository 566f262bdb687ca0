package local

import (
	"context"
	"net"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultMaxConnections is how many connections a collector's listener
// holds open at once (LimitListener).
const DefaultMaxConnections = 256

// DefaultMaxPerClient is how many of them one client address may hold.
const DefaultMaxPerClient = 16

// LimitListener returns a listener that holds at most n connections open
// at once, at most perClient of them from one client address (the IP,
// without the port); n, perClient < 1 mean 1.
//
// Idle and slow connections cannot hold the door: a connection over
// either cap is admitted by closing the oldest open connection that has
// not vouched (of the same address when the address is at its cap, else
// of any), and refused (closed at once) only when every connection in its
// way has vouched. A connection vouches (Vouch) once a request on it
// carried a report whose MAC verifies: only a sensor's key can make one,
// so the whole room is kept for them however many hostile connections
// come. Honest clients that have not vouched yet (a sensor fetching the
// order) are the newest connections and are evicted last.
func LimitListener(l net.Listener, n, perClient int) net.Listener {
	return &limitListener{Listener: l, max: max(n, 1), perClient: max(perClient, 1),
		open: map[*limitConn]struct{}{}, byClient: map[string]int{}}
}

type limitListener struct {
	net.Listener
	max, perClient int

	mu       sync.Mutex
	seq      uint64
	open     map[*limitConn]struct{}
	byClient map[string]int
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		_ = c.Close() // refused: nothing in its way may be evicted
	}
}

// admit registers c, evicting the oldest connections in its way that
// have not vouched; nil: one in its way may not be evicted.
func (l *limitListener) admit(c net.Conn) *limitConn {
	client := clientOf(c.RemoteAddr())
	l.mu.Lock()
	var victims []*limitConn
	if l.byClient[client] >= l.perClient {
		victims = append(victims, l.oldestUnvouched(client, nil))
	}
	if len(l.open)-len(victims) >= l.max {
		victims = append(victims, l.oldestUnvouched("", victims))
	}
	if slices.Contains(victims, nil) {
		l.mu.Unlock()
		return nil
	}
	for _, v := range victims {
		l.forget(v)
	}
	l.seq++
	lc := &limitConn{Conn: c, l: l, client: client, seq: l.seq}
	l.open[lc] = struct{}{}
	l.byClient[client]++
	l.mu.Unlock()
	for _, v := range victims {
		_ = v.Conn.Close() // the server's read fails and it closes v again
	}
	return lc
}

// oldestUnvouched is the oldest open connection that has not vouched, of
// client ("": any), other than those in but; nil: none.
func (l *limitListener) oldestUnvouched(client string, but []*limitConn) *limitConn {
	var oldest *limitConn
	for c := range l.open {
		if c.vouched.Load() || (client != "" && c.client != client) || slices.Contains(but, c) {
			continue
		}
		if oldest == nil || c.seq < oldest.seq {
			oldest = c
		}
	}
	return oldest
}

// forget removes c from the counts (l.mu held), once.
func (l *limitListener) forget(c *limitConn) {
	if _, ok := l.open[c]; !ok {
		return
	}
	delete(l.open, c)
	if l.byClient[c.client]--; l.byClient[c.client] == 0 {
		delete(l.byClient, c.client)
	}
}

func clientOf(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

type limitConn struct {
	net.Conn
	l       *limitListener
	client  string
	seq     uint64
	vouched atomic.Bool
}

func (c *limitConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

type connKey struct{}

// ConnContext is an http.Server's ConnContext for a LimitListener: it
// lets a handler's Vouch find the request's connection (under TLS too).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	for {
		if lc, ok := c.(*limitConn); ok {
			return context.WithValue(ctx, connKey{}, lc)
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return ctx
		}
		c = u.NetConn()
	}
}

// Vouch marks the connection of a request's context (ConnContext) as
// one that carried a report whose MAC verifies: LimitListener no longer
// evicts it to make room.
func Vouch(ctx context.Context) {
	if lc, ok := ctx.Value(connKey{}).(*limitConn); ok {
		lc.vouched.Store(true)
	}
}
