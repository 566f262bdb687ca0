package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphcloak/graphcloak/local"
	"github.com/graphcloak/graphcloak/privacy"
	"github.com/graphcloak/graphcloak/sensor"
)

// recorder keeps every byte a party received: the files in its
// directories, its standard input, the HTTP bodies sent to it.
type recorder struct{ got bytes.Buffer }

func (r *recorder) files(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				r.got.Write(b)
				r.got.WriteByte(0)
			}
			return nil
		})
	}
}

// leaks returns the representations of secret found in what r recorded.
func (r *recorder) leaks(forms []string) []string {
	var found []string
	for _, f := range forms {
		if bytes.Contains(r.got.Bytes(), []byte(f)) {
			found = append(found, f)
		}
	}
	return found
}

// readingForms are the ways a reading can be written: Go's shortest
// round-trip form, fixed precisions a CSV holds, and exponent form.
func readingForms(y float64) []string {
	return []string{strconv.FormatFloat(y, 'g', -1, 64), strconv.FormatFloat(y, 'f', 9, 64), strconv.FormatFloat(y, 'f', 6, 64),
		strconv.FormatFloat(y, 'e', 8, 64)}
}

// TestNoRawReadingReachesCoordinatorOrCollector runs a local release with
// each party in its own directory — the coordinator (the ledger, its
// signing key), the sensors (their keys, odometers and raw readings), the
// collector (the order, the coordinator's public key, the MAC keys, the
// journal) — and records every input the coordinator and the collector
// receive: their files before and after, the collector's standard input
// and the HTTP bodies posted to serve --collect-order. None holds a raw
// reading in any usual written form, nor a sensor key or the master key
// (without which the noise cannot be removed). The readings have nine
// significant digits, so no written form can match by chance; the
// rounded reading r = round(y·2^k) is not checked, as a noisy value equals
// it when the noise draw is 0, which the mechanism allows.
func TestNoRawReadingReachesCoordinatorOrCollector(t *testing.T) {
	r := newCollectRig(t)
	for k := range r.readings { // nine significant digits each
		v, _ := strconv.Atoi(k)
		r.readings[k] = 0.31415926 + float64(v)*0.0271828182
	}
	coord, coll := filepath.Join(r.dir, "coordinator"), filepath.Join(r.dir, "collector")
	os.MkdirAll(coord, 0o755)
	os.MkdirAll(coll, 0o755)
	// The coordinator holds its signing key and the ledger; the collector the public key and MAC keys.
	for _, mv := range [][2]string{{r.ledger, filepath.Join(coord, "ledger.json")}, {r.signing, filepath.Join(coord, "coord.key")},
		{r.signing + ".pub", filepath.Join(coll, "coord.key.pub")}, {r.macKeys, filepath.Join(coll, "mac-keys.csv")}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	r.ledger, r.signing, r.macKeys = filepath.Join(coord, "ledger.json"), filepath.Join(coord, "coord.key"), filepath.Join(coll, "mac-keys.csv")
	os.Symlink(filepath.Join(coll, "coord.key.pub"), r.signing+".pub") // the sensors' provisioned copy
	var coordRec, collRec recorder
	coordRec.files(t, coord)
	order := filepath.Join(coord, "order.json")
	r.open(t, "e1", order, "--sensitivity-cache", filepath.Join(coord, "delta2.json"))
	coordRec.files(t, coord)
	// The collector gets the order; the sensors report in their own directories.
	collOrder := filepath.Join(coll, "order.json")
	data, _ := os.ReadFile(order)
	os.WriteFile(collOrder, data, 0o644)
	var nodes []string
	for k := 1; k <= 34; k++ {
		nodes = append(nodes, strconv.Itoa(k))
	}
	reports := r.reports(t, order, nodes[:20]...)
	collRec.files(t, coll)
	collRec.got.Write(reports) // the collector's standard input
	var out, errb strings.Builder
	cmd := newRootCmd(&out, &errb)
	cmd.SetIn(bytes.NewReader(reports))
	cmd.SetArgs([]string{"collect", "--order", collOrder, "--coordinator-key", filepath.Join(coll, "coord.key.pub"),
		"--mac-keys", r.macKeys, "--journal", filepath.Join(coll, "journal"), "--reports", "-"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("collect: %v %s", err, errb.String())
	}
	// The rest over HTTP, to serve --collect-order, recorded by a proxy in front of it.
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- runArgs(ctx, []string{"serve", "--collect-order", collOrder, "--coordinator-key", filepath.Join(coll, "coord.key.pub"),
			"--mac-keys", r.macKeys, "--journal", filepath.Join(coll, "journal-http"), "--listen", "127.0.0.1:" + port}, io.Discard, io.Discard)
	}()
	url := "http://127.0.0.1:" + port
	waitHTTP(t, url+"/epoch/order")
	body := r.reports(t, order, nodes[20:]...)
	collRec.got.Write(body) // what the collector's listener receives
	resp, err := http.Post(url+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	<-done
	collRec.files(t, coll)
	for node, y := range r.readings {
		if l := coordRec.leaks(readingForms(y)); l != nil {
			t.Errorf("the coordinator received node %s's reading: %q", node, l)
		}
		if l := collRec.leaks(readingForms(y)); l != nil {
			t.Errorf("the collector received node %s's reading: %q", node, l)
		}
	}
	secrets := []string{hex.EncodeToString(r.masterKey[:])}
	for _, n := range nodes {
		ks := sensor.SensorKey(r.masterKey, n)
		secrets = append(secrets, hex.EncodeToString(ks[:]))
	}
	if l := append(coordRec.leaks(secrets), collRec.leaks(secrets)...); l != nil {
		t.Errorf("a key that removes noise reached the coordinator or collector: %d found", len(l))
	}
	// The recorder can fail: the sensors' own odometers... hold no reading,
	// but a readings file would be caught.
	var canary recorder
	canary.got.WriteString(fmt.Sprintf("1,%s\n", strconv.FormatFloat(r.readings["1"], 'f', 9, 64)))
	if canary.leaks(readingForms(r.readings["1"])) == nil {
		t.Fatal("the recorder misses a reading written as a CSV row")
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s never answered", url)
}

// TestServeCollector: serve --collect-order answers batches with their
// statuses, counts reports in /metrics, shows the progress, and closes the
// epoch at its notAfter into a release file (then stops: --max-runs 1).
func TestServeCollector(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	r.open(t, "e1", order, "--valid-for", "3s")
	port := freePort(t)
	release := filepath.Join(r.dir, "release.json")
	done := make(chan int)
	var errb strings.Builder
	go func() {
		done <- runArgs(context.Background(), []string{"serve", "--collect-order", order, "--coordinator-key", r.signing + ".pub",
			"--mac-keys", r.macKeys, "--journal", filepath.Join(r.dir, "journal"), "--release-out", release,
			"--listen", "127.0.0.1:" + port, "--max-runs", "1", "--max-body", "20000"}, io.Discard, &errb)
	}()
	url := "http://127.0.0.1:" + port
	waitHTTP(t, url+"/healthz")
	reps := r.reports(t, order, "1", "2", "3")
	post := func(body []byte) int {
		resp, err := http.Post(url+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post(reps); s != 200 {
		t.Errorf("good batch: %d", s)
	}
	if s := post(bytes.Repeat([]byte("x"), 30000)); s != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized batch: %d", s)
	}
	if s := post([]byte(`{"kind":"graphcloak.epoch-order"}` + "\n")); s != http.StatusUnprocessableEntity {
		t.Errorf("not a report: %d", s)
	}
	resp, _ := http.Get(url + "/metrics")
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"graphcloak_reports_accepted_total 3", "graphcloak_reports_received_total 4",
		`graphcloak_reports_refused_total{reason="not-a-report"} 1`, `graphcloak_epoch_reported{epoch="e1",scope="building-7"} 3`,
		`graphcloak_epoch_expected_reports{epoch="e1",scope="building-7"} 34`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, path := range []string{"/epoch/", "/"} {
		resp, _ = http.Get(url + path)
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(page), "3 of 34") {
			t.Errorf("the page %s does not show 3 of 34", path)
		}
	}
	var p struct{ Reported, Expected int }
	resp, _ = http.Get(url + "/epoch/progress")
	json.NewDecoder(resp.Body).Decode(&p)
	resp.Body.Close()
	if p.Reported != 3 || p.Expected != 34 {
		t.Errorf("progress %+v", p)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve: exit %d: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not close the epoch at its notAfter")
	}
	if _, err := os.Stat(release); err != nil {
		t.Fatalf("no release file after the epoch closed: %v", err)
	}
}

// TestServeCollectorTLS: with --tls-cert/--tls-key the collector answers
// over HTTPS (a self-signed certificate made here), and not over plain HTTP.
func TestServeCollectorTLS(t *testing.T) {
	r := newCollectRig(t)
	order := filepath.Join(r.dir, "order.json")
	r.open(t, "e1", order)
	certFile, keyFile := selfSigned(t, r.dir)
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var errb strings.Builder
	go func() {
		done <- runArgs(ctx, []string{"serve", "--collect-order", order, "--coordinator-key", r.signing + ".pub",
			"--mac-keys", r.macKeys, "--journal", filepath.Join(r.dir, "journal"), "--listen", "127.0.0.1:" + port,
			"--tls-cert", certFile, "--tls-key", keyFile}, io.Discard, &errb)
	}()
	defer func() { cancel(); <-done }()
	pool := x509.NewCertPool()
	certPEM, _ := os.ReadFile(certFile)
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	var resp *http.Response
	var err error
	for i := 0; i < 200; i++ {
		if resp, err = client.Get("https://127.0.0.1:" + port + "/epoch/order"); err == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("HTTPS: %v (%s)", err, errb.String())
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want, _ := os.ReadFile(order)
	if !bytes.Equal(got, want) {
		t.Errorf("GET /epoch/order over HTTPS is not the order file")
	}
	if resp, err := http.Get("http://127.0.0.1:" + port + "/epoch/order"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("the TLS listener answered plain HTTP with 200")
		}
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key (PEM).
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "collector"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

// TestServeOpenEpochs: serve --open-epochs --max-runs 2 opens the epochs
// of two slots — each charged once, its order served, its window the
// slot — collects the reports of the one they reach, closes each at the
// slot's end into its release file and stops once the last is closed (no
// third epoch opened, charged and left uncollected). Driven by what serve
// answers, not by where in a slot the test starts: a batch refused as late
// or of another epoch is made again for the order served then.
func TestServeOpenEpochs(t *testing.T) {
	r := newCollectRig(t)
	journal := filepath.Join(r.dir, "journal")
	port := freePort(t)
	done := make(chan int, 1)
	var errb strings.Builder // read only once serve has returned
	go func() {
		done <- runArgs(context.Background(), []string{"serve", "--open-epochs", "--schedule", "@every 3s", "--graph", "karate",
			"--tau", "1", "--epsilon", "1", "--delta", "1e-6", "--ledger", r.ledger, "--scope", "building-7",
			"--signing-key", r.signing, "--mac-keys", r.macKeys, "--journal", journal, "--listen", "127.0.0.1:" + port,
			"--max-runs", "2"}, io.Discard, &errb)
	}()
	fail := func(format string, a ...any) {
		t.Helper()
		select {
		case code := <-done:
			t.Fatalf(format+"; serve exited %d: %s", append(a, code, errb.String())...)
		default:
			t.Fatalf(format, a...)
		}
	}
	url := "http://127.0.0.1:" + port
	waitHTTP(t, url+"/healthz")
	pub, _ := sensor.LoadCoordinatorKey(r.signing + ".pub")
	var o1 sensor.Order // the epoch that took the reports
	for attempt := 1; o1.ReleaseID == ""; attempt++ {
		if attempt > 100 {
			fail("no epoch took the reports")
		}
		resp, err := http.Get(url + "/epoch/order")
		if err != nil {
			fail("GET /epoch/order: %v", err)
		}
		env, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		o, err := sensor.VerifyOrder(pub, env)
		if err != nil {
			fail("GET /epoch/order: %v", err)
		}
		path := filepath.Join(r.dir, o.ReleaseID+".order")
		os.WriteFile(path, env, 0o644)
		body, err := r.tryReports(path, "1", "2")
		var expired *sensor.ExpiredError
		if errors.As(err, &expired) { // served until the next slot's epoch opens
			time.Sleep(100 * time.Millisecond)
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		resp, err = http.Post(url+"/epoch/reports", "application/x-ndjson", bytes.NewReader(body))
		if err != nil {
			fail("POST: %v", err)
		}
		var batch local.BatchResult
		err = json.NewDecoder(resp.Body).Decode(&batch)
		resp.Body.Close()
		switch {
		case err != nil:
			fail("POST: %s: %v", resp.Status, err)
		case resp.StatusCode == http.StatusOK:
			o1 = o
		case !allReasons(batch.Results, local.Late, local.Closed, local.OtherEpoch):
			fail("POST: %s %+v", resp.Status, batch)
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d: %s", code, errb.String())
	}
	rel, err := privacy.ReadReleaseFile(filepath.Join(journal, o1.ReleaseID+".release.json"))
	if err != nil || rel.Meta.N != 2 || len(rel.Meta.Missing) != 32 {
		t.Fatalf("the release of the epoch that took the reports: %+v, %v", rel, err)
	}
	orders, _ := filepath.Glob(filepath.Join(journal, "*.order"))
	if len(orders) != 2 {
		t.Fatalf("--max-runs 2 opened %d epochs: %v\n%s", len(orders), orders, errb.String())
	}
	for _, path := range orders {
		o, _, err := local.ReadOrderFile(path, pub)
		if err != nil {
			t.Fatal(err)
		}
		if slot := o.NotBefore.UTC().Truncate(3 * time.Second); !o.NotBefore.Equal(slot) || !o.NotAfter.Equal(slot.Add(3*time.Second)) {
			t.Errorf("epoch %s: window [%v, %v) is not a 3 s slot", o.Epoch, o.NotBefore, o.NotAfter)
		}
		if _, err := os.Stat(filepath.Join(journal, o.ReleaseID+".release.json")); err != nil {
			t.Errorf("epoch %s opened but not closed into its release file: %v", o.Epoch, err)
		}
	}
	if want := float64(len(orders)) * o1.Rho; math.Abs(ledgerSpent(t, r.ledger)-want) > 1e-12 {
		t.Errorf("%d epochs opened, ρ spent %v, want %v (each charged once)", len(orders), ledgerSpent(t, r.ledger), want)
	}
}

// allReasons reports whether res is not empty and every result's reason
// is one of reasons.
func allReasons(res []local.Result, reasons ...local.Reason) bool {
	for _, r := range res {
		if !slices.Contains(reasons, r.Reason) {
			return false
		}
	}
	return len(res) > 0
}
