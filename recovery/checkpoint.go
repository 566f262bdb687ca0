package recovery

import "fmt"

// PassBlock is one finished block of the certifier's pass: the norms
// ‖P·â_j‖ of its columns (block·32 …, in order) and the pairs its rows
// kept, computed at fit tolerance Tol with the loose or the precise action
// (both set the action's accuracy). A block's numbers
// are the same whichever process, goroutine or run computes them, so a
// pass that takes finished blocks from a checkpoint instead of computing
// them gives the same certificate bit for bit.
type PassBlock struct {
	Tol     float64   `json:"tol"`
	Precise bool      `json:"precise"`
	Block   int       `json:"block"`
	Norms   []float64 `json:"norms"`
	Pairs   []Pair    `json:"pairs"`
}

// PassCheckpoint keeps the finished blocks of a pass across runs
// (CertifierOptions.Checkpoint): a pass skips the blocks Finished returns
// and hands every block it computes to Add, one call at a time, as each
// block finishes.
type PassCheckpoint interface {
	// Finished returns the blocks of a pass at fit tolerance tol with the
	// given action that an earlier run finished (on the same graph and τ:
	// the caller's check).
	Finished(precise bool, tol float64) []PassBlock
	// Add records a block the pass has just finished.
	Add(b PassBlock)
}

// PassBlockSize is the number of sources of a block of the pass (the last
// block may hold fewer).
const PassBlockSize = blockSize

// PassBlocks returns the number of blocks of the pass on n nodes (blocks
// of 32 sources: the unit a shard, a checkpoint and progress count in).
func PassBlocks(n int) int { return (n + blockSize - 1) / blockSize }

// check refuses a block that cannot be one of a pass on n nodes.
func (b PassBlock) check(n int) error {
	lo := b.Block * blockSize
	if b.Block < 0 || lo >= n {
		return fmt.Errorf("recovery: checkpointed block %d is not a block of %d nodes", b.Block, n)
	}
	if want := min(blockSize, n-lo); len(b.Norms) != want {
		return fmt.Errorf("recovery: checkpointed block %d holds %d norms, not %d", b.Block, len(b.Norms), want)
	}
	for _, p := range b.Pairs {
		if int(p.J) < lo || int(p.J) >= lo+len(b.Norms) || p.K < 0 || int(p.K) >= n {
			return fmt.Errorf("recovery: checkpointed block %d holds the pair (%d, %d)", b.Block, p.J, p.K)
		}
	}
	return nil
}
