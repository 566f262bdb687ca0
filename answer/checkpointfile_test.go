package answer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphcloak/graphcloak/laplacian"
	"github.com/graphcloak/graphcloak/recovery"
)

// journalBlock is block blk of a pass on karate with distinct numbers.
func journalBlock(blk int) recovery.PassBlock {
	norms := make([]float64, 2)
	for i := range norms {
		norms[i] = 0.1*float64(blk) + 0.01*float64(i) + 1e-17
	}
	return recovery.PassBlock{Tol: recovery.DefaultFitTolerance, Block: blk, Norms: norms,
		Pairs: []recovery.Pair{{J: int32(blk), K: int32(blk + 1), C: 0.5 + float64(blk)/7}}}
}

func openJournal(t *testing.T, path string, g *laplacian.Graph, key []byte) (*Checkpoint, error) {
	t.Helper()
	return OpenCheckpoint(path, g, 1, recovery.CertifierOptions{}, Cache{MACKey: key, Software: "v1"})
}

// A running audit's checkpoint only ever grows at its end: each write
// appends the blocks finished since the last one (issue 79: rewriting it
// whole wrote ≈ 400 MB for one audit of LFR 2·10⁴), and what it holds
// reads back, block for block.
func TestCheckpointAppendsOnly(t *testing.T) {
	g, _ := laplacian.Karate()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "c.json.checkpoint")
	cp, err := openJournal(t, path, g, key)
	if err != nil {
		t.Fatal(err)
	}
	cp.Every = -1
	var before []byte
	for blk := 0; blk < 6; blk++ {
		cp.Add(journalBlock(blk))
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(after, before) || len(after) <= len(before) {
			t.Fatalf("block %d: the file was rewritten (%d bytes before, %d after, not a prefix)", blk, len(before), len(after))
		}
		before = after
	}
	back, err := openJournal(t, path, g, key)
	if err != nil {
		t.Fatal(err)
	}
	got := back.Finished(false, recovery.DefaultFitTolerance)
	if len(got) != 6 {
		t.Fatalf("read back %d blocks, want 6", len(got))
	}
	for blk, b := range got {
		want := journalBlock(blk)
		if b.Block != blk || b.Norms[1] != want.Norms[1] || b.Pairs[0] != want.Pairs[0] {
			t.Errorf("block %d read back as %+v, want %+v", blk, b, want)
		}
	}
}

// A checkpoint whose last write was cut short (a crash, a full disk)
// resumes every whole block before the cut, and the run that resumes it
// writes on from there: the file then holds every block once more.
func TestCheckpointCutShortResumes(t *testing.T) {
	g, _ := laplacian.Karate()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "c.json.checkpoint")
	cp, _ := openJournal(t, path, g, key)
	cp.Every = -1
	for blk := 0; blk < 3; blk++ {
		cp.Add(journalBlock(blk))
	}
	st, _ := os.Stat(path)
	if err := os.Truncate(path, st.Size()-9); err != nil {
		t.Fatal(err)
	}
	cut, err := openJournal(t, path, g, key)
	if err != nil || len(cut.Finished(false, recovery.DefaultFitTolerance)) != 2 {
		t.Fatalf("the cut file: %v, want its 2 whole blocks resumed", err)
	}
	cut.Add(journalBlock(2))
	cut.Add(journalBlock(3))
	if err := cut.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := openJournal(t, path, g, key)
	if err != nil || len(again.Finished(false, recovery.DefaultFitTolerance)) != 4 {
		t.Fatalf("after the resumed run: %v, want 4 blocks", err)
	}
}

// A block's line edited by hand (a norm changed) does not verify: the
// checkpoint is refused, nothing of it resumed.
func TestCheckpointEditedLineRefused(t *testing.T) {
	g, _ := laplacian.Karate()
	key := []byte("0123456789abcdef0123456789abcdef")
	path := filepath.Join(t.TempDir(), "c.json.checkpoint")
	cp, _ := openJournal(t, path, g, key)
	cp.Add(journalBlock(0))
	cp.Add(journalBlock(1))
	if err := cp.Save(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	edited := bytes.Replace(b, []byte("0.11000000000000001"), []byte("0.12000000000000001"), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("the norm to edit is not in the file:\n%s", b)
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := openJournal(t, path, g, key)
	var refused *CheckpointRefusedError
	var macErr *CacheMACError
	if !errors.As(err, &refused) || !errors.As(err, &macErr) || len(back.Finished(false, recovery.DefaultFitTolerance)) != 0 {
		t.Errorf("an edited block: %v, want a refused checkpoint (MAC) and nothing resumed", err)
	}
}
