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

// writer serialises frames from many goroutines onto the one port. Writes happen in one
// goroutine: on virtio-serial a write blocks while no host is connected, and that must never
// hold up the request loop (which is what notices the disconnect and cleans up).
type writer struct {
	mu      sync.Mutex
	key     []byte
	sid     string
	seq     uint64
	dropped uint64
	out     chan outFrame
}

type outFrame struct {
	sid  string
	line []byte
}

func newWriter(w io.Writer, key []byte) *writer {
	wr := &writer{key: key, out: make(chan outFrame, 4096)}
	go wr.loop(bufio.NewWriterSize(w, 64<<10))
	return wr
}

func (w *writer) current(sid string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return sid != "" && sid == w.sid
}

func (w *writer) loop(bw *bufio.Writer) {
	for f := range w.out {
		// Frames of a session that ended have nobody to read them, and a new session must not
		// receive them.
		if !w.current(f.sid) {
			w.mu.Lock()
			w.dropped++
			w.mu.Unlock()
			continue
		}
		bw.Write(f.line)
		if len(w.out) == 0 {
			bw.Flush()
		}
	}
}

func (w *writer) startSession(sid string) {
	w.mu.Lock()
	w.sid, w.seq = sid, 0
	w.mu.Unlock()
}

func (w *writer) disconnect() {
	w.mu.Lock()
	w.sid = ""
	w.mu.Unlock()
}

func (w *writer) droppedFrames() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

func (w *writer) send(typ string, id uint64, body interface{}) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.sid == "" {
		w.dropped++
		w.mu.Unlock()
		return nil
	}
	w.seq++
	sid := w.sid
	payload, err := json.Marshal(frame{V: protoVersion, Sid: sid, Seq: w.seq, Type: typ, ID: id, Body: raw})
	w.mu.Unlock()
	if err != nil {
		return err
	}
	line := make([]byte, 0, len(payload)+66)
	line = append(line, payload...)
	line = append(line, '\t')
	line = append(line, sign(w.key, payload)...)
	line = append(line, '\n')
	w.out <- outFrame{sid: sid, line: line}
	return nil
}
