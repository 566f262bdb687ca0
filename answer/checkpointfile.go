package answer

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/graphcloak/graphcloak/internal/jsonmac"
	"github.com/graphcloak/graphcloak/recovery"
)

// A checkpoint file is a journal, one JSON object a line: the header
// (its kind, graph, τ, tolerance and version) sealed with its MAC, then
// one line a finished block, sealed with the MAC of the header's MAC and
// the block's bytes. A running audit appends only the blocks finished
// since its last write: rewriting the whole file each time cost the
// pass quadratic time and hundreds of MB written on LFR 2·10⁴ (issue
// 79). A line cut short by a crash (no newline) is dropped and
// overwritten; a whole line that does not verify refuses the file.

// checkpointHead is the journal's first line.
type checkpointHead struct {
	FileHeader
	MAC string `json:"mac,omitempty"`
}

func (h checkpointHead) mac(key []byte) (string, error) {
	h.MAC = ""
	return jsonmac.Sum(key, h)
}

// checkpointLine is a block's line: the block's JSON as written (the MAC
// is over these bytes).
type checkpointLine struct {
	Block json.RawMessage `json:"block"`
	MAC   string          `json:"mac"`
}

// headLine returns the header's sealed line (with its newline) and MAC.
func headLine(h FileHeader, key []byte) ([]byte, string, error) {
	head := checkpointHead{FileHeader: h}
	mac, err := head.mac(key)
	if err != nil {
		return nil, "", err
	}
	head.MAC = mac
	b, err := json.Marshal(head)
	return append(b, '\n'), mac, err
}

// blockLine returns block's sealed line (with its newline) under key
// after the header's MAC.
func blockLine(b recovery.PassBlock, key []byte, headMAC string) ([]byte, error) {
	raw, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(checkpointLine{Block: raw, MAC: lineMAC(key, headMAC, raw)})
	return append(line, '\n'), err
}

// readJournal reads a checkpoint journal sealed under key: its header,
// its blocks and the length of its whole lines (a line cut short at the
// end is not counted: the next write replaces it).
func readJournal(r io.Reader, key []byte) (FileHeader, []recovery.PassBlock, int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := br.ReadBytes('\n')
	if err != nil {
		return FileHeader{}, nil, 0, fmt.Errorf("not a checkpoint: no header line")
	}
	var head checkpointHead
	if err := json.Unmarshal(first, &head); err != nil {
		return FileHeader{}, nil, 0, fmt.Errorf("not a checkpoint: %v", err)
	}
	want, err := head.mac(key)
	if err != nil {
		return FileHeader{}, nil, 0, err
	}
	if head.MAC == "" || !jsonmac.Equal(head.MAC, want) {
		return FileHeader{}, nil, 0, &CacheMACError{Missing: head.MAC == ""}
	}
	size := int64(len(first))
	var blocks []recovery.PassBlock
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return head.FileHeader, blocks, size, nil // a cut line, if any, dropped
		}
		if err != nil {
			return FileHeader{}, nil, 0, err
		}
		b, err := readBlockLine(bytes.TrimSuffix(line, []byte("\n")), key, head.MAC)
		if err != nil {
			return FileHeader{}, nil, 0, fmt.Errorf("block line %d: %w", len(blocks)+1, err)
		}
		blocks = append(blocks, b)
		size += int64(len(line))
	}
}

// readBlockLine verifies and decodes one block's line.
func readBlockLine(line, key []byte, headMAC string) (recovery.PassBlock, error) {
	var l checkpointLine
	if err := json.Unmarshal(line, &l); err != nil {
		return recovery.PassBlock{}, fmt.Errorf("not a checkpoint: %v", err)
	}
	if !jsonmac.Equal(l.MAC, lineMAC(key, headMAC, l.Block)) {
		return recovery.PassBlock{}, &CacheMACError{Missing: l.MAC == ""}
	}
	var b recovery.PassBlock
	if err := json.Unmarshal(l.Block, &b); err != nil {
		return recovery.PassBlock{}, fmt.Errorf("not a checkpoint: %v", err)
	}
	return b, nil
}

// appendJournal writes lines at the end of the journal at path, first
// cutting it to size bytes (its whole lines); size < 0 starts the file
// anew with head. The file is synced.
func appendJournal(path string, size int64, head []byte, lines []byte) error {
	flag := os.O_WRONLY | os.O_CREATE
	if size < 0 {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	if size >= 0 {
		err = f.Truncate(size)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err == nil && size < 0 {
		_, err = f.Write(head)
	}
	if err == nil {
		_, err = f.Write(lines)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lineMAC is a journal line's MAC: hex(HMAC-SHA256(key, headMAC ‖ block)),
// the header's MAC (fixed-length hex) first, so a line moved to another
// journal or edited fails.
func lineMAC(key []byte, headMAC string, block []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(headMAC))
	m.Write(block)
	return hex.EncodeToString(m.Sum(nil))
}
