package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// stopAfter is a checkpoint that cancels its audit once a given number of
// blocks have been added, and counts the blocks added.
type stopAfter struct {
	*Checkpoint
	mu     sync.Mutex
	added  int
	after  int
	cancel context.CancelFunc
}

func (s *stopAfter) Add(b recovery.PassBlock) {
	s.Checkpoint.Add(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.added++; s.cancel != nil && s.added == s.after {
		s.cancel()
	}
}

// certificateState is the certificate's state (norms and classes) as
// stored: the file's bytes but its creation time.
func certificateState(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ State json.RawMessage }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return string(c.State)
}

// TestAuditResumesFromCheckpoint: an audit cancelled after a few blocks
// leaves a checkpoint holding them; the next run resumes it, computes only
// the blocks it lacks, and stores the certificate an uninterrupted run
// stores, byte for byte (norms, pairs' classes and audit). On a graph of
// 300 nodes at τ = 1 (10 blocks), loose action, with and without a MAC.
func TestAuditResumesFromCheckpoint(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the installation key, without a MAC key
	g, err := laplacian.PreferentialAttachment(300, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	const tau = 1
	blocks := recovery.PassBlocks(g.N())
	for _, key := range [][]byte{nil, []byte("0123456789abcdef0123456789abcdef")} {
		dir := t.TempDir()
		opt := recovery.CertifierOptions{Tol: recovery.DefaultFitTolerance}
		whole := Cache{Path: filepath.Join(dir, "whole.json"), Software: "test", MACKey: key}
		if _, err := Certify(context.Background(), g, tau, opt, whole); err != nil {
			t.Fatal(err)
		}

		resumed := Cache{Path: filepath.Join(dir, "resumed.json"), Software: "test", MACKey: key}
		path := CheckpointPath(resumed.Path)
		cp, err := OpenCheckpoint(path, g, tau, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "test"})
		if err != nil || cp.Sources(false) != 0 {
			t.Fatalf("a new checkpoint: %v, %d sources", err, cp.Sources(false))
		}
		cp.Every = -1
		ctx, cancel := context.WithCancel(context.Background())
		stop := &stopAfter{Checkpoint: cp, after: 3, cancel: cancel}
		o := opt
		o.Checkpoint = stop
		if _, err := Certify(ctx, g, tau, o, resumed); !errors.Is(err, context.Canceled) {
			t.Fatalf("the interrupted run: %v, want context.Canceled", err)
		}
		cancel()
		if err := cp.Save(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(resumed.Path); err == nil {
			t.Fatal("the interrupted run wrote a certificate")
		}

		cp2, err := OpenCheckpoint(path, g, tau, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "test"})
		if err != nil {
			t.Fatal(err)
		}
		held := len(cp2.Finished(false, recovery.DefaultFitTolerance))
		if held != stop.added || held < 3 || held >= blocks {
			t.Fatalf("the checkpoint holds %d blocks (%d sources) after %d were added, of %d", held, cp2.Sources(false), stop.added, blocks)
		}
		again := &stopAfter{Checkpoint: cp2}
		o.Checkpoint = again
		if _, err := Certify(context.Background(), g, tau, o, resumed); err != nil {
			t.Fatal(err)
		}
		if again.added != blocks-held {
			t.Errorf("the resumed run computed %d blocks, want the %d the checkpoint lacked", again.added, blocks-held)
		}
		if a, b := certificateState(t, whole.Path), certificateState(t, resumed.Path); a != b {
			t.Errorf("the resumed certificate differs from the uninterrupted one (%d vs %d bytes)", len(b), len(a))
		}
		if key != nil {
			var c Certificate
			b, _ := os.ReadFile(resumed.Path)
			if json.Unmarshal(b, &c) != nil || c.MAC == "" {
				t.Error("the resumed certificate is not sealed")
			}
		}
	}
}

// A checkpoint of another audit (τ, graph, version), or one whose MAC
// does not verify, is not resumed: it is refused with the reason, and the
// audit starts from nothing.
func TestCheckpointRefused(t *testing.T) {
	g, _ := laplacian.Karate()
	other, _ := laplacian.Grid(5, 6)
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "c.json.checkpoint")
	cp, err := OpenCheckpoint(path, g, 1, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	cp.Add(recovery.PassBlock{Block: 0, Norms: make([]float64, 32)})
	if err := cp.Save(); err != nil {
		t.Fatal(err)
	}
	if cp, err := OpenCheckpoint(path, g, 1, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v1"}); err != nil || cp.Sources(false) != 32 {
		t.Fatalf("its own audit: %v, %d sources", err, cp.Sources(false))
	}
	for name, open := range map[string]func() (*Checkpoint, error){
		"τ": func() (*Checkpoint, error) {
			return OpenCheckpoint(path, g, 2, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v1"})
		},
		"T": func() (*Checkpoint, error) {
			return OpenCheckpoint(path, g, 1, recovery.CertifierOptions{Tol: 0.02}, Cache{MACKey: key, Software: "v1"})
		},
		"graph": func() (*Checkpoint, error) {
			return OpenCheckpoint(path, other, 1, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v1"})
		},
		"version": func() (*Checkpoint, error) {
			return OpenCheckpoint(path, g, 1, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v2"})
		},
		"MAC": func() (*Checkpoint, error) {
			return OpenCheckpoint(path, g, 1, recovery.CertifierOptions{}, Cache{MACKey: []byte("another key, another key, other!"), Software: "v1"})
		},
	} {
		cp, err := open()
		var refused *CheckpointRefusedError
		if !errors.As(err, &refused) || cp == nil || cp.Sources(false) != 0 {
			t.Errorf("%s changed: %v, want a *CheckpointRefusedError and an empty checkpoint", name, err)
		}
	}
	if err := cp.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Remove left the file: %v", err)
	}
}

// A command that computes the answer model through its cache (plan,
// locate --private-answer) and is stopped in the pass resumes it from
// the checkpoint beside the cache file, says so when the pass starts, and
// gets the model a run never stopped gets (the same norms and classes);
// the checkpoint is then gone.
func TestModelResumable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	g, err := laplacian.PreferentialAttachment(300, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	part := make([]int, g.N())
	for i := range part {
		part[i] = i % 3
	}
	log := slog.New(slog.DiscardHandler)
	fresh, err := NewModel(context.Background(), g, 1, part, nil, recovery.CertifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache := &Cache{Path: filepath.Join(t.TempDir(), "answer.json"), Software: "test"}
	ctx, cancel := context.WithCancel(context.Background())
	stop := recovery.CertifierOptions{Progress: func(done, _ int) {
		if done >= 96 {
			cancel()
		}
	}}
	if _, err := cache.ModelResumable(ctx, g, 1, part, nil, stop, log, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped run: %v", err)
	}
	said, held := 0, ""
	m, err := cache.ModelResumable(context.Background(), g, 1, part, nil, recovery.CertifierOptions{}, log, func(path, h string) {
		if path != CheckpointPath(cache.Path) {
			t.Errorf("resumed from %s", path)
		}
		held = h
		fmt.Sscanf(h, "%d of", &said)
	})
	if err != nil {
		t.Fatal(err)
	}
	if said < 96 || said >= g.N() || !strings.Contains(held, fmt.Sprintf(" of %d sources of the fast pass at T = ", g.N())) {
		t.Errorf("resumed %q, want at least the 96 done before the stop of the %d sources", held, g.N())
	}
	a, _ := json.Marshal(fresh.Certifier.State(fresh.Classes))
	b, _ := json.Marshal(m.Certifier.State(m.Classes))
	if string(a) != string(b) {
		t.Error("the resumed model's state differs from a fresh one's")
	}
	if _, err := os.Stat(CheckpointPath(cache.Path)); !os.IsNotExist(err) {
		t.Errorf("the checkpoint outlived the model: %v", err)
	}
}

// A checkpoint holding both passes of an audit (the fast pass to its end,
// found not precise enough, and part of the precise pass) says how far
// the precise pass got, out of the graph's sources: each pass covers
// every source, so their counts are never added (karate: 34 and 20 read
// "54 of 34 sources").
func TestCheckpointHeldPerPass(t *testing.T) {
	g, _ := laplacian.Karate()
	cp, err := OpenCheckpoint(filepath.Join(t.TempDir(), "c.json.checkpoint"), g, 1, recovery.CertifierOptions{},
		Cache{MACKey: []byte("0123456789abcdef0123456789abcdef"), Software: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if h := cp.Held(); h != "" || cp.Resumed() != 0 {
		t.Errorf("empty checkpoint: %q, %d", h, cp.Resumed())
	}
	cp.Add(recovery.PassBlock{Block: 0, Norms: make([]float64, 32)})
	if h, want := cp.Held(), "32 of 34 sources of the fast pass at T = 0"; h != want || cp.Resumed() != 32 {
		t.Errorf("fast pass begun: %q, %d; want %q, 32", h, cp.Resumed(), want)
	}
	cp.Add(recovery.PassBlock{Block: 1, Norms: make([]float64, 2)})
	cp.Add(recovery.PassBlock{Block: 0, Precise: true, Norms: make([]float64, 20)})
	if h, want := cp.Held(), "20 of 34 sources of the precise pass at T = 0 (the fast pass done)"; h != want || cp.Resumed() != 20 {
		t.Errorf("precise pass begun: %q, %d; want %q, 20", h, cp.Resumed(), want)
	}
}

// TestCheckpointHeldNeverAboveTheTotal: a sensor-noise audit keeps the
// blocks of passes at two fit tolerances (and a block may come twice);
// what is held is the latest pass's sources, each block once, never
// more than the graph's nodes, and each pass is named with its own count.
// On 2a43d64 Held summed every fast block: "66 of 34 sources".
func TestCheckpointHeldNeverAboveTheTotal(t *testing.T) {
	g, _ := laplacian.Karate()
	cp, err := OpenCheckpoint(filepath.Join(t.TempDir(), "c.json.checkpoint"), g, 1, recovery.CertifierOptions{},
		Cache{MACKey: []byte("0123456789abcdef0123456789abcdef"), Software: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	cp.Add(recovery.PassBlock{Tol: 0.05, Block: 0, Norms: make([]float64, 32)})
	cp.Add(recovery.PassBlock{Tol: 0.05, Block: 1, Norms: make([]float64, 2)})
	cp.Add(recovery.PassBlock{Tol: 0.02, Block: 0, Norms: make([]float64, 32)})
	cp.Add(recovery.PassBlock{Tol: 0.02, Block: 0, Norms: make([]float64, 32)}) // twice
	if h, want := cp.Held(), "32 of 34 sources of the fast pass at T = 0.02"; h != want || cp.Resumed() != 32 {
		t.Errorf("second tolerance begun: %q, %d; want %q, 32", h, cp.Resumed(), want)
	}
	if h, want := cp.HeldPass(false, 0.05), "34 of 34 sources of the fast pass at T = 0.05"; h != want {
		t.Errorf("first tolerance's pass: %q, want %q", h, want)
	}
	if h := cp.HeldPass(true, 0.05); h != "" {
		t.Errorf("a pass the checkpoint holds nothing of: %q", h)
	}
}

// TestResumedNoiseAuditSaysWhatIsHeld: a sensor-noise audit (the norms
// at the default tolerance, then the pass at the noise's) stopped in its
// second pass and run again says, as the pass it resumes starts, how many
// of that pass's sources the checkpoint holds, naming the pass — never
// more than the graph's nodes. On 2a43d64 the first pass's line summed
// both passes' blocks ("396 of 300"). The pass of the norms keeps no
// checkpoint (issue 79: its blocks hold no pairs), so it says nothing.
func TestResumedNoiseAuditSaysWhatIsHeld(t *testing.T) {
	g, err := laplacian.PreferentialAttachment(300, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	const tau = 1
	n := g.N()
	cache := Cache{Path: filepath.Join(t.TempDir(), "a.json"), Software: "test", MACKey: []byte("0123456789abcdef0123456789abcdef")}
	part := make([]int, n)
	opt := recovery.CertifierOptions{SensorNoise: 0.005}
	log := slog.New(slog.DiscardHandler)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	passes, last := 0, n
	stop := opt
	stop.Progress = func(done, total int) {
		if done < last || (done == 0 && last == n) {
			passes++
		}
		last = done
		if passes >= 2 && done >= 3*recovery.PassBlockSize {
			cancel()
		}
	}
	if _, err := cache.ModelResumable(ctx, g, tau, part, nil, stop, log, nil); !errors.Is(err, context.Canceled) {
		t.Skipf("the audit did not stop in a second pass (%d passes, %v): the graph needs one tolerance only", passes, err)
	}

	var said []string
	if _, err := cache.ModelResumable(context.Background(), g, tau, part, nil, opt, log, func(path, held string) {
		said = append(said, held)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("resume lines: %q", said)
	if len(said) != 1 {
		t.Fatalf("the resumed audit said %q; want a line for the pass it resumed", said)
	}
	for _, s := range said {
		var k, of int
		var pass string
		if _, err := fmt.Sscanf(s, "%d of %d sources of the %s pass", &k, &of, &pass); err != nil || of != n || k > n || k <= 0 ||
			!strings.Contains(s, " at T = ") {
			t.Errorf("resume line %q: want k of %d sources of the named pass at its T, k ≤ %d", s, n, n)
		}
	}
	if strings.HasSuffix(said[0], fmt.Sprintf("at T = %g", recovery.DefaultFitTolerance)) {
		t.Errorf("the resumed line names the default tolerance's pass, which kept no checkpoint: %q", said[0])
	}
}
