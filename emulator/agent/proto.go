package main

// Frames on the control channel: one JSON object per line, a TAB, then the hex HMAC-SHA256 of
// the JSON bytes under the per-boot key. JSON never contains a raw TAB, so the split is exact.

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

const protoVersion = 1

type frame struct {
	V    int             `json:"v"`
	Sid  string          `json:"sid"`
	Seq  uint64          `json:"seq"`
	Type string          `json:"type"`
	ID   uint64          `json:"id,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
}

var errBadMAC = errors.New("bad or missing MAC")

func sign(key []byte, payload []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(payload)
	return hex.EncodeToString(m.Sum(nil))
}

// decodeFrame checks the MAC before it looks at the JSON, so unauthenticated input is never parsed.
func decodeFrame(key []byte, line []byte) (*frame, error) {
	line = bytes.TrimRight(line, "\r\n")
	i := bytes.LastIndexByte(line, '\t')
	if i < 0 {
		return nil, errBadMAC
	}
	payload, mac := line[:i], line[i+1:]
	want := sign(key, payload)
	if !hmac.Equal([]byte(want), mac) {
		return nil, errBadMAC
	}
	var f frame
	if err := json.Unmarshal(payload, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// writer serialises frames from many goroutines onto the one port.
type writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	key []byte
	sid string
	seq uint64
	// When the host is not connected, frames are dropped: nobody would read them, and a new
	// session must not receive the old one's output.
	connected bool
	dropped   uint64
}

func newWriter(w io.Writer, key []byte) *writer {
	return &writer{w: bufio.NewWriterSize(w, 64<<10), key: key}
}

func (w *writer) startSession(sid string) {
	w.mu.Lock()
	w.sid, w.seq, w.connected = sid, 0, true
	w.mu.Unlock()
}

func (w *writer) disconnect() {
	w.mu.Lock()
	w.connected, w.sid = false, ""
	w.mu.Unlock()
}

func (w *writer) send(typ string, id uint64, body interface{}) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.connected {
		w.dropped++
		return nil
	}
	w.seq++
	payload, err := json.Marshal(frame{V: protoVersion, Sid: w.sid, Seq: w.seq, Type: typ, ID: id, Body: raw})
	if err != nil {
		return err
	}
	w.w.Write(payload)
	w.w.WriteByte('\t')
	w.w.WriteString(sign(w.key, payload))
	w.w.WriteByte('\n')
	return w.w.Flush()
}
