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
	"math"
	"os"
	"path/filepath"

	"github.com/graphcloak/graphcloak/internal/atomicfile"
	"github.com/graphcloak/graphcloak/internal/jsonmac"
)

// The forecasts' memo keeps the per-node forecasts' pool of trials too
// (forecast.TrialMemo): each block of trials in a file of its own, a
// sealed JSON header line then the floats' bits, little-endian, exactly
// as computed (JSON's digits would take seconds for ~15 MB a block on
// LFR 2·10⁴). The MAC is over the header (its mac empty) and the bytes
// after it: a file edited, cut short, of another key or another build is
// not read.

// trialsHeader is a kept block's first line.
type trialsHeader struct {
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Software string `json:"software"`
	Floats   int    `json:"floats"`
	MAC      string `json:"mac"`
}

const trialsKind = "graphcloak trials"

// trialsPath is the file of the block kept under key.
func (m *forecastMemo) trialsPath(key string) string {
	return filepath.Join(m.s.w.Dir, "trials-"+key+".bin")
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

// LoadTrials returns the floats kept under key, when its file verifies
// and holds exactly floats of them.
func (m *forecastMemo) LoadTrials(key string, floats int) ([]float64, bool) {
	path := m.trialsPath(key)
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			m.s.w.logger().Warn("kept trials cannot be read: drawing them again", "file", path, "error", err)
		}
		return nil, false
	}
	line, payload, ok := bytes.Cut(b, []byte("\n"))
	var h trialsHeader
	if !ok || json.Unmarshal(line, &h) != nil || h.Kind != trialsKind || h.Key != key {
		m.s.w.logger().Warn("kept trials are not these: drawing them again and replacing them", "file", path)
		return nil, false
	}
	if h.Software != m.s.w.Software || h.Floats != floats || len(payload) != 8*floats {
		m.s.w.logger().Info("kept trials were made by another version or for other trials: drawing them again", "file", path)
		return nil, false
	}
	want, err := trialsMAC(m.s.key, h, payload)
	if err != nil || !jsonmac.Equal(h.MAC, want) {
		m.s.w.logger().Warn("kept trials' MAC does not verify (edited, or sealed under another key): drawing them again", "file", path)
		return nil, false
	}
	x := make([]float64, floats)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(payload[8*i:]))
	}
	touch(path)
	return x, true
}

// HasTrials reports whether a block of floats floats is kept under key
// by this build: its header line and size, its seal unchecked (LoadTrials
// checks it).
func (m *forecastMemo) HasTrials(key string, floats int) bool {
	f, err := os.Open(m.trialsPath(key))
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
		h.Software == m.s.w.Software && h.Floats == floats && fi.Size() == int64(len(line))+8*int64(floats)
}

// StoreTrials keeps x under key; a failure is logged (the next run draws).
func (m *forecastMemo) StoreTrials(key string, x []float64) {
	payload := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(payload[8*i:], math.Float64bits(v))
	}
	h := trialsHeader{Kind: trialsKind, Key: key, Software: m.s.w.Software, Floats: len(x)}
	mac, err := trialsMAC(m.s.key, h, payload)
	if err == nil {
		h.MAC = mac
		var head []byte
		if head, err = json.Marshal(h); err == nil {
			err = atomicfile.Write(m.trialsPath(key), append(append(head, '\n'), payload...), 0o600)
		}
	}
	if err != nil {
		m.s.w.logger().Warn("could not keep trials", "file", m.trialsPath(key), "error", err)
		return
	}
	m.s.w.Trim()
}
