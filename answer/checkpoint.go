package answer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// An answer audit that survives interruption: the certifier's pass runs
// in blocks of 32 sources whose numbers do not depend on who computes
// them (recovery.PassBlock), so the blocks a run finished are written to
// a checkpoint file beside the certificate, and a run stopped part way
// (a signal, a pre-empted pod, a crash) is resumed by the next run on the
// same graph, τ, fit tolerance and version from its last saved block. The
// resumed pass gives the certificate an uninterrupted one gives, bit for
// bit (the same norms, pairs and classes).

// CheckpointKind names the file format of an audit's checkpoint.
const CheckpointKind = "graphcloak.answer-audit-checkpoint"

// defaultCheckpointEvery is how often a running audit appends the
// blocks it finished to its checkpoint (each write only those: the file
// is a journal, checkpointfile.go).
const defaultCheckpointEvery = 5 * time.Second

// CheckpointPath is the checkpoint of the audit saving to path.
func CheckpointPath(path string) string { return path + ".checkpoint" }

// Checkpoint is a recovery.PassCheckpoint kept in a file: blocks
// read back from an earlier run of the same audit, and the blocks of this
// run appended at most every Every (and by Save). It is safe for
// concurrent use.
type Checkpoint struct {
	Path  string
	Every time.Duration // 0: defaultCheckpointEvery; < 0: every block
	mu    sync.Mutex
	// blocks are every block held (read back and added); pending the
	// sealed lines of those not yet written.
	blocks  []recovery.PassBlock
	pending []byte
	head    []byte // the header's sealed line
	headMAC string
	// size is how much of the file at Path is this checkpoint's whole
	// lines; −1: the file is to be started anew (none, or refused).
	size  int64
	key   []byte
	saved time.Time
	err   error // the first failed write
	n     int   // the graph's nodes: the sources of each pass
}

// CheckpointRefusedError says why an existing checkpoint is not resumed
// (another graph, τ, tolerance or version, an unreadable or forged file):
// the audit starts over and overwrites it.
type CheckpointRefusedError struct {
	Path string
	Err  error
}

func (e *CheckpointRefusedError) Error() string {
	return fmt.Sprintf("graphcloak: the audit checkpoint %s is not resumed (%v); the audit starts over", e.Path, e.Err)
}

func (e *CheckpointRefusedError) Unwrap() error { return e.Err }

// OpenCheckpoint opens the checkpoint at path of the audit of g (in
// its node order) at τ with opt's fit tolerance or sensor-noise bound, by
// cache's software, sealed under the cache's key (its MACKey, or this
// installation's, as the certificate). Its blocks are resumed when
// the file is of this audit; a file that is not is reported as a
// *CheckpointRefusedError beside an empty checkpoint (no file is not an
// error). Each block also carries the T of its pass (a sensor-noise
// audit runs passes at two).
func OpenCheckpoint(path string, g *laplacian.Graph, tau float64, opt recovery.CertifierOptions, cache Cache) (*Checkpoint, error) {
	k, software := fitKeyOf(opt), cache.Software
	macKey, err := cache.key()
	if err != nil {
		return nil, err
	}
	head, headMAC, err := headLine(newAnswerFileHeader(CheckpointKind, g.Fingerprint(), tau, k.tol, k, software), macKey)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{Path: path, key: macKey, n: g.N(), head: head, headMAC: headMAC, size: -1}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cp, nil
	}
	refuse := func(err error) (*Checkpoint, error) { return cp, &CheckpointRefusedError{Path: path, Err: err} }
	if err != nil {
		return refuse(err)
	}
	defer f.Close()
	h, blocks, size, err := readJournal(f, macKey)
	if err != nil {
		return refuse(err)
	}
	if err := h.matches(CheckpointKind, g.Fingerprint(), tau, k, software); err != nil {
		return refuse(err)
	}
	cp.blocks, cp.size = blocks, size
	return cp, nil
}

// Sources returns how many sources' blocks the checkpoint holds for the
// action (loose or precise), at every tolerance: a count of blocks, not
// of a pass's sources (Held, Resumed).
func (cp *Checkpoint) Sources(precise bool) int {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	s := 0
	for _, b := range cp.blocks {
		if b.Precise == precise {
			s += len(b.Norms)
		}
	}
	return s
}

// Resumed returns how many sources of the latest pass (the pass of the
// last block kept) the checkpoint holds: never more than the graph's
// nodes, each block counted once — the passes at other tolerances or
// actions each cover every source, so they are never added (a sum read
// "230 of 115 sources").
func (cp *Checkpoint) Resumed() int {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	precise, tol, ok := cp.latest()
	if !ok {
		return 0
	}
	return cp.held(precise, tol)
}

// Held says how far the latest pass got (the pass of the last block
// kept), for a person: "60 of 115 sources of the fast pass at T = 0.05",
// "20 of 115 sources of the precise pass at T = 0.05 (the fast pass
// done)"; "" when the checkpoint holds nothing.
func (cp *Checkpoint) Held() string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	precise, tol, ok := cp.latest()
	if !ok {
		return ""
	}
	return cp.heldText(precise, tol)
}

// HeldPass is Held for the pass at fit tolerance tol with the precise
// or the fast action: what a pass starting now resumes ("" when the
// checkpoint holds none of it).
func (cp *Checkpoint) HeldPass(precise bool, tol float64) string {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.heldText(precise, tol)
}

func (cp *Checkpoint) heldText(precise bool, tol float64) string {
	s := cp.held(precise, tol)
	if s == 0 {
		return ""
	}
	pass := "fast"
	if precise {
		pass = "precise"
	}
	out := fmt.Sprintf("%d of %d sources of the %s pass at T = %.3g", s, cp.n, pass, tol)
	if precise && cp.held(false, tol) == cp.n {
		out += " (the fast pass done)"
	}
	return out
}

// latest is the pass of the last block kept (blocks are kept in the
// order computed); false when there is none.
func (cp *Checkpoint) latest() (precise bool, tol float64, ok bool) {
	bs := cp.blocks
	if len(bs) == 0 {
		return false, 0, false
	}
	b := bs[len(bs)-1]
	return b.Precise, b.Tol, true
}

// held is how many sources of the pass at tol with the given action the
// checkpoint holds: each block of the graph counted once, at most its
// size, so never more than the graph's nodes.
func (cp *Checkpoint) held(precise bool, tol float64) int {
	seen := map[int]bool{}
	s := 0
	for _, b := range cp.blocks {
		if b.Precise != precise || b.Tol != tol || seen[b.Block] || b.Block < 0 || b.Block >= recovery.PassBlocks(cp.n) {
			continue
		}
		seen[b.Block] = true
		s += min(len(b.Norms), cp.n-b.Block*recovery.PassBlockSize)
	}
	return s
}

// Finished implements recovery.PassCheckpoint.
func (cp *Checkpoint) Finished(precise bool, tol float64) []recovery.PassBlock {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	var out []recovery.PassBlock
	for _, b := range cp.blocks {
		if b.Precise == precise && b.Tol == tol {
			out = append(out, b)
		}
	}
	return out
}

// Add implements recovery.PassCheckpoint: the block is kept, and the
// blocks not yet written are appended to the file when the last write is
// Every old. A failed write is kept for Save to report; the pass goes on.
func (cp *Checkpoint) Add(b recovery.PassBlock) {
	line, lerr := blockLine(b, cp.key, cp.headMAC) // sealed outside the lock
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.blocks = append(cp.blocks, b)
	if lerr != nil {
		cp.fail(lerr)
		return
	}
	cp.pending = append(cp.pending, line...)
	every := cp.Every
	if every == 0 {
		every = defaultCheckpointEvery
	}
	if now := time.Now(); every < 0 || now.Sub(cp.saved) >= every {
		cp.fail(cp.write())
		cp.saved = now
	}
}

// fail keeps the first error of a write.
func (cp *Checkpoint) fail(err error) {
	if err != nil && cp.err == nil {
		cp.err = err
	}
}

// Save writes every block kept so far that is not in the file yet (an
// interrupted audit's last act; nothing when there is none), and reports
// the first write that failed.
func (cp *Checkpoint) Save() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if len(cp.blocks) == 0 {
		return cp.err
	}
	if err := cp.write(); err != nil {
		return err
	}
	return cp.err
}

// Remove deletes the checkpoint (its audit is done).
func (cp *Checkpoint) Remove() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if err := os.Remove(cp.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// write appends the pending lines to the file (started anew with the
// header when it is not this checkpoint's), synced.
func (cp *Checkpoint) write() error {
	if len(cp.pending) == 0 && cp.size >= 0 {
		return nil
	}
	if err := appendJournal(cp.Path, cp.size, cp.head, cp.pending); err != nil {
		cp.resealAll() // what is in the file is unknown now: the next write starts it anew
		return err
	}
	if cp.size < 0 {
		cp.size = int64(len(cp.head))
	}
	cp.size += int64(len(cp.pending))
	cp.pending = cp.pending[:0]
	return nil
}

// resealAll makes every block held pending, to be written to a file
// started anew.
func (cp *Checkpoint) resealAll() {
	cp.size, cp.pending = -1, cp.pending[:0]
	for _, b := range cp.blocks {
		if line, err := blockLine(b, cp.key, cp.headMAC); err == nil {
			cp.pending = append(cp.pending, line...)
		}
	}
}

// ModelResumable is Model with the pass, when it runs, checkpointed beside
// the cache file (CheckpointPath(c.Path)): a command stopped while it
// computes the answer model (plan, locate --private-answer, serve) resumes
// the pass next time from the blocks it finished. resumed, when set, is
// told the checkpoint and what it holds (Checkpoint.Held) as the pass
// starts; a checkpoint that cannot be resumed is logged (a warning) and
// replaced, and one saved by a stopped pass says so (a warning: what to
// run). Without a cache file it is Model.
func (c *Cache) ModelResumable(ctx context.Context, g *laplacian.Graph, tau float64, part []int, names []string,
	opt recovery.CertifierOptions, log *slog.Logger, resumed func(path, held string)) (*Model, error) {
	if c == nil || c.Path == "" {
		return c.Model(ctx, g, tau, part, names, opt, log)
	}
	cp, err := OpenCheckpoint(CheckpointPath(c.Path), g, tau, opt, *c)
	var refused *CheckpointRefusedError
	switch {
	case errors.As(err, &refused):
		log.Warn(err.Error())
	case err != nil:
		return c.Model(ctx, g, tau, part, names, opt, log)
	}
	started := opt.Started
	opt.Checkpoint = cp
	opt.Started = func(pc recovery.PassCost) {
		if held := cp.HeldPass(pc.Precise, pc.Tol); held != "" && resumed != nil && !pc.NormsOnly {
			resumed(cp.Path, held)
		}
		if started != nil {
			started(pc)
		}
	}
	m, err := c.Model(ctx, g, tau, part, names, opt, log)
	if err != nil {
		held := cp.Held()
		switch serr := cp.Save(); {
		case serr != nil:
			log.Warn("could not save the answer audit's checkpoint", "checkpoint", cp.Path, "error", serr)
		case ctx.Err() != nil && held != "":
			log.Warn(fmt.Sprintf("answer audit interrupted: %s saved in %s; run the same command again to resume from there",
				held, cp.Path))
		}
		return nil, err
	}
	if err := cp.Remove(); err != nil {
		log.Warn("could not remove the answer audit's checkpoint", "checkpoint", cp.Path, "error", err)
	}
	return m, nil
}
