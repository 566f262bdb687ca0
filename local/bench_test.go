package local

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// benchReports are n sealed reports of one epoch, as JSON Lines.
func benchReports(b *testing.B, n int) (Order, map[string][]byte, [][]byte) {
	b.Helper()
	nodes, keys := testKeys(n)
	o := testOrder(nodes)
	lines := make([][]byte, n)
	for i, node := range nodes {
		lines[i] = line(b, report(o, keys, node, int64(i)))
	}
	return o, keys, lines
}

// BenchmarkCollectFile ingests 10^5 reports of one epoch from a JSON
// Lines stream into a fresh journal (one op = all of them; fsync per
// batch of 4096, as collect does).
func BenchmarkCollectFile(b *testing.B) {
	const n = 100_000
	o, keys, lines := benchReports(b, n)
	data := bytes.Join(lines, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := openTest(b, o, keys, b.TempDir(), &clock{t0})
		b.StartTimer()
		accepted := 0
		err := c.SubmitReader(bytes.NewReader(data), 4096, func(res []Result) error {
			for _, r := range res {
				if r.Reason == Accepted {
					accepted++
				}
			}
			return nil
		})
		b.StopTimer()
		if err != nil || accepted != n {
			b.Fatalf("accepted %d of %d: %v", accepted, n, err)
		}
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "reports/s")
}

// BenchmarkCollectHTTP: 200 concurrent loopback clients post 10^5 reports
// of one epoch in batches of 50 to the collector's handler; each batch is
// durable (group-committed fsync) before its answer.
func BenchmarkCollectHTTP(b *testing.B) {
	const n, clients, batch = 100_000, 200, 50
	o, keys, lines := benchReports(b, n)
	var bodies [][]byte
	for i := 0; i < n; i += batch {
		bodies = append(bodies, append(bytes.Join(lines[i:min(i+batch, n)], []byte("\n")), '\n'))
	}
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: tr}
	b.ResetTimer()
	var fsyncs uint64
	for range b.N {
		b.StopTimer()
		c := openTest(b, o, keys, b.TempDir(), &clock{t0})
		mux := http.NewServeMux()
		(&Handler{Collector: c}).Routes(mux)
		srv := httptest.NewServer(mux)
		work := make(chan []byte, len(bodies))
		for _, body := range bodies {
			work <- body
		}
		close(work)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failed error
		b.StartTimer()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for body := range work {
					resp, err := client.Post(srv.URL+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
					if err == nil {
						if resp.StatusCode != 200 {
							err = fmt.Errorf("status %d", resp.StatusCode)
						}
						resp.Body.Close()
					}
					if err != nil {
						mu.Lock()
						failed = err
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		if failed != nil {
			b.Fatal(failed)
		}
		if p := c.Progress(); p.Reported != n {
			b.Fatalf("%d of %d stored", p.Reported, n)
		}
		fsyncs += c.Stats().Fsyncs
		srv.Close()
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "reports/s")
	b.ReportMetric(float64(fsyncs)/float64(b.N), "fsyncs/op")
}
