package job

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/graphcloak/graphcloak/forecast"
	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
)

// The work cache keeps blocks of simulated trials (the per-node forecasts'
// pool: the diffusions of each trial) in files of their own, each a
// sealed JSON header line then the floats' bits, little-endian, exactly
// as computed (JSON's digits would take seconds for ~15 MB a block on
// LFR 2·10⁴). The MAC is over the header (its mac empty) and the bytes
// after it: a file edited, cut short, of another key or another build is
// not read. The trials are simulated readings from a model, never real
// data: keeping them costs no privacy. A sweep reads and keeps them
// through its KeptTrials, KeepTrials and HasTrials (keepingTrials).

// trialFiles keeps them in dir, sealed under macKey and stamped with
// software (a block another build wrote is not read); trim, when set, is
// called after each block kept (the store's bound), log told of what
// cannot be read or kept. One sweep's blocks take at most budget bytes
// (0: none is kept); the blocks past it are drawn again by the next run.
type trialFiles struct {
	dir      string
	macKey   []byte
	software string
	trim     func()
	log      *slog.Logger
	budget   int64
	kept     atomic.Int64 // bytes this sweep kept
}

// trialsShare: a sweep's trials take at most 1/trialsShare of the store's
// bound (the default 1 GiB: 256 MB, 16 blocks of 32 trials on 2·10⁴ nodes,
// the 400 trials a plan with one ε more reads there), so that they do not
// push the graph's certificates, which cost minutes, out of the store.
const trialsShare = 4

// keepingTrials is sweep with the cache's trial files as its KeptTrials,
// KeepTrials and HasTrials (unchanged without a cache).
func (w *WorkCache) keepingTrials(sweep forecast.EpsilonSweep) forecast.EpsilonSweep {
	key := w.sealKey()
	if key == nil {
		return sweep
	}
	tf := &trialFiles{dir: w.Dir, macKey: key, software: w.Software, trim: w.Trim, log: w.logger(), budget: w.maxBytes() / trialsShare}
	sweep.KeptTrials, sweep.KeepTrials, sweep.HasTrials = tf.load, tf.store, tf.has
	return sweep
}

// trialsHeader is a kept block's first line.
type trialsHeader struct {
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Software string `json:"software"`
	Floats   int    `json:"floats"`
	MAC      string `json:"mac"`
}

const trialsKind = "graphcloak trials"

// path is the file of the block kept under key.
func (st *trialFiles) path(key string) string {
	return filepath.Join(st.dir, "trials-"+key+".bin")
}

func (st *trialFiles) logger() *slog.Logger {
	if st.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return st.log
}

// trialsMAC is the MAC of a block's header (its MAC field empty) and its
// floats' bytes.
func trialsMAC(key []byte, h trialsHeader, payload []byte) (string, error) {
	h.MAC = ""
	head, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(head)
	mac.Write(payload)
	return hex.EncodeToString(mac.Sum(nil)), nil
}

// load returns the floats kept under key, when its file verifies
// and holds exactly floats of them.
func (st *trialFiles) load(key string, floats int) ([]float64, bool) {
	path := st.path(key)
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			st.logger().Warn("kept trials cannot be read: drawing them again", "file", path, "error", err)
		}
		return nil, false
	}
	line, payload, ok := bytes.Cut(b, []byte("\n"))
	var h trialsHeader
	if !ok || json.Unmarshal(line, &h) != nil || h.Kind != trialsKind || h.Key != key {
		st.logger().Warn("kept trials are not these: drawing them again and replacing them", "file", path)
		return nil, false
	}
	if h.Software != st.software || h.Floats != floats || len(payload) != 8*floats {
		st.logger().Info("kept trials were made by another version or for other trials: drawing them again", "file", path)
		return nil, false
	}
	want, err := trialsMAC(st.macKey, h, payload)
	if err != nil || !jsonmac.Equal(h.MAC, want) {
		st.logger().Warn("kept trials' MAC does not verify (edited, or sealed under another key): drawing them again", "file", path)
		return nil, false
	}
	x := make([]float64, floats)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(payload[8*i:]))
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // used now: a bounded store prunes the least recently used first
	return x, true
}

// has reports whether a block of floats floats is kept under key
// by this build: its header line and size, its seal unchecked (load
// checks it).
func (st *trialFiles) has(key string, floats int) bool {
	f, err := os.Open(st.path(key))
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	line, err := bufio.NewReaderSize(f, 4096).ReadBytes('\n')
	var h trialsHeader
	return err == nil && json.Unmarshal(line, &h) == nil && h.Kind == trialsKind && h.Key == key &&
		h.Software == st.software && h.Floats == floats && fi.Size() == int64(len(line))+8*int64(floats)
}

// store keeps x under key, within the budget; a failure is logged (the
// next run draws).
func (st *trialFiles) store(key string, x []float64) {
	if st.kept.Add(8*int64(len(x))) > st.budget {
		return // past the sweep's share of the store: drawn again next time
	}
	payload := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(payload[8*i:], math.Float64bits(v))
	}
	h := trialsHeader{Kind: trialsKind, Key: key, Software: st.software, Floats: len(x)}
	mac, err := trialsMAC(st.macKey, h, payload)
	if err == nil {
		h.MAC = mac
		var head []byte
		if head, err = json.Marshal(h); err == nil {
			err = atomicfile.Write(st.path(key), append(append(head, '\n'), payload...), 0o600)
		}
	}
	if err != nil {
		st.logger().Warn("could not keep trials", "file", st.path(key), "error", err)
		return
	}
	if st.trim != nil {
		st.trim()
	}
}
