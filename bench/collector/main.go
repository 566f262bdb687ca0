// Command collector measures whether honest sensors reach a collector
// (graphcloak serve --collect-order) under attack: run by run.sh, which
// sets the collector up; see there.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type bench struct {
	url    string
	addr   string
	pid    int
	honest [][]byte
}

func main() {
	u := flag.String("url", "", "the collector's base URL")
	pid := flag.Int("pid", 0, "the collector's process id (CPU seconds and resident memory from /proc)")
	honestFile := flag.String("honest", "", "honest reports, one per line (each used once)")
	hostile := flag.Int("hostile", 1000, "hostile connections held open")
	junk := flag.Bool("junk", true, "also the 4 MiB junk POSTs (on a collector that reads them whole, 10 at once took 3.7 GiB)")
	flag.Parse()
	data, err := os.ReadFile(*honestFile)
	if err != nil {
		log.Fatal(err)
	}
	parsed, err := url.Parse(*u)
	if err != nil {
		log.Fatal(err)
	}
	b := &bench{url: *u, addr: parsed.Host, pid: *pid, honest: bytes.Fields(data)}
	for _, mode := range []string{"idle", "slow"} {
		for _, spread := range []int{1, 250} {
			stop := b.holdHostile(*hostile, mode, spread)
			time.Sleep(time.Second)
			took, status := b.report()
			fmt.Printf("honest report (from 127.0.0.1) beside %d %s connections from %d addresses: %s in %.2f s\n", *hostile, mode, spread, status, took.Seconds())
			stop()
			time.Sleep(time.Second)
		}
	}
	if !*junk {
		return
	}
	for _, chunked := range []bool{false, true} {
		cpu0, _ := b.proc()
		start := time.Now()
		status := b.junk(chunked)
		took := time.Since(start)
		cpu1, hwm := b.proc()
		fmt.Printf("4 MiB junk POST (chunked %v): %s in %.2f s wall; collector CPU %.2f s, peak resident %.1f MiB\n",
			chunked, status, took.Seconds(), cpu1-cpu0, hwm)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { b.junk(true) })
	}
	time.Sleep(100 * time.Millisecond)
	took, status := b.report()
	wg.Wait()
	_, hwm := b.proc()
	fmt.Printf("honest report during 10 junk POSTs at once: %s in %.2f s; peak resident %.1f MiB\n", status, took.Seconds(), hwm)
}

// report posts the next honest report and waits up to 60 s for its answer.
func (b *bench) report() (time.Duration, string) {
	body := append(b.honest[0], '\n')
	b.honest = b.honest[1:]
	c := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := c.Post(b.url+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
	if err != nil {
		return time.Since(start), "no answer (" + err.Error() + ")"
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return time.Since(start), fmt.Sprintf("%s %s", resp.Status, bytes.TrimSpace(answer))
}

// junk posts 4 MiB of "{}" lines, with its Content-Length or chunked.
func (b *bench) junk(chunked bool) string {
	var body io.Reader = bytes.NewReader(bytes.Repeat([]byte("{}\n"), 4<<20/3))
	if chunked {
		body = struct{ io.Reader }{body} // no length: sent chunked
	}
	c := &http.Client{Timeout: 120 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Post(b.url+"/epoch/reports", "application/x-ndjson", body)
	if err != nil {
		return "no answer (" + err.Error() + ")"
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Status
}

// holdHostile opens n connections from spread loopback addresses
// (127.0.0.1, else 127.0.0.2 …) and holds them: idle (half send nothing,
// half one GET and then nothing, kept alive) or slow (half send their
// headers a line a second, half a POST's body a byte a second).
func (b *bench) holdHostile(n int, mode string, spread int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range n {
		sem <- struct{}{}
		d := net.Dialer{Timeout: 10 * time.Second}
		if spread > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%spread))}
		}
		c, err := d.Dial("tcp", b.addr)
		<-sem
		if err != nil {
			log.Printf("hostile connection %d: %v", i, err)
			continue
		}
		wg.Go(func() {
			defer func() { _ = c.Close() }()
			hold(c, mode, i%2 == 0, done)
		})
	}
	return func() { close(done); wg.Wait() }
}

func hold(c net.Conn, mode string, first bool, done chan struct{}) {
	var head, drip string
	switch {
	case mode == "idle" && first:
	case mode == "idle":
		head = "GET /epoch/progress HTTP/1.1\r\nHost: x\r\n\r\n"
	case first:
		head, drip = "POST /epoch/reports HTTP/1.1\r\n", "X-Slow: 1\r\n"
	default:
		head, drip = "POST /epoch/reports HTTP/1.1\r\nHost: x\r\nContent-Length: 400\r\n\r\n", " "
	}
	_, _ = io.WriteString(c, head)
	go func() { _, _ = io.Copy(io.Discard, bufio.NewReader(c)) }() // answers, unread otherwise
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if drip != "" {
				if _, err := io.WriteString(c, drip); err != nil {
					return
				}
			}
		}
	}
}

// proc is the collector's CPU seconds so far and peak resident memory
// (VmHWM, MiB).
func (b *bench) proc() (cpu, hwmMiB float64) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", b.pid))
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.pid))
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			hwmMiB = kb / 1024
		}
	}
	return (ut + st) / 100, hwmMiB // clock ticks of 1/100 s
}
