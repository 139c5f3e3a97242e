package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// scriptedPort plays a virtio-serial port: each read returns the next step (bytes, or EOF when
// the step is nil); past the script a read reports on idle and then blocks for good.
type scriptedPort struct {
	mu    sync.Mutex
	steps [][]byte
	clock *atomic.Int64
	idle  chan struct{}
	once  sync.Once
}

func (p *scriptedPort) Read(b []byte) (int, error) {
	p.mu.Lock()
	if len(p.steps) == 0 {
		p.mu.Unlock()
		p.once.Do(func() { close(p.idle) })
		select {}
	}
	step := p.steps[0]
	p.steps = p.steps[1:]
	p.mu.Unlock()
	if step == nil {
		// Every EOF read takes a host second: the grace is counted on the host's clock.
		p.clock.Add(1)
		return 0, io.EOF
	}
	return copy(b, step), nil
}

func helloLine(nonce string) []byte {
	payload := []byte(fmt.Sprintf(`{"v":1,"sid":"","seq":1,"type":"hello","id":1,"body":{"proto":1,"client":"test","nonce":%q,"watchdogMs":0}}`, nonce))
	return []byte(string(payload) + "\t" + sign(testKey, payload) + "\n")
}

// newSessionAgent is an agent writing to a buffer, with no namespaces of the test host in its reach
// and the host's clock in the test's hands.
func newSessionAgent(t *testing.T) (*agent, *syncBuf, *atomic.Int64) {
	t.Helper()
	oldPrefix, oldClock := nsPrefix, hostClock
	nsPrefix = "lfnlab-agent-test-none-"
	clock := &atomic.Int64{}
	hostClock = clock.Load
	t.Cleanup(func() { nsPrefix, hostClock = oldPrefix, oldClock })
	out := &syncBuf{}
	return &agent{key: testKey, w: newWriter(out, testKey), procs: newRegistry(), version: "test"}, out, clock
}

// serve runs the request loop over the script until the port goes idle.
func serve(t *testing.T, a *agent, clock *atomic.Int64, steps ...[]byte) {
	t.Helper()
	port := &scriptedPort{steps: steps, clock: clock, idle: make(chan struct{})}
	go a.serve(port)
	select {
	case <-port.idle:
	case <-time.After(10 * time.Second):
		t.Fatal("the request loop did not read the whole script")
	}
}

func serveScript(t *testing.T, steps ...[]byte) (*agent, *syncBuf) {
	a, out, clock := newSessionAgent(t)
	serve(t, a, clock, steps...)
	return a, out
}

func (a *agent) sessionID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sid
}

func TestAHelloBeforeAStaleEOFKeepsItsSession(t *testing.T) {
	// The old host's EOF, the new host's hello, then the EOF the guest had not yet cleared.
	a, out := serveScript(t, nil, helloLine("aaaaaaaaaaaaaaaa1"), nil)
	if a.sessionID() == "" {
		t.Fatal("a one-read EOF after the hello ended the new session")
	}
	waitFor(t, out, `"type":"hello"`)
}

func TestALastingEOFEndsTheSessionAfterTheGrace(t *testing.T) {
	a, _ := serveScript(t, helloLine("bbbbbbbbbbbbbbbb1"), nil, nil, nil)
	if sid := a.sessionID(); sid != "" {
		t.Fatalf("EOF over %d host seconds left the session %q open", eofGraceS, sid)
	}
}

func TestAHelloCutByAPassingEOFIsStillAnswered(t *testing.T) {
	h := helloLine("cccccccccccccccc1")
	a, out := serveScript(t, h[:40], nil, h[40:])
	waitFor(t, out, `"type":"hello"`)
	if a.sessionID() == "" {
		t.Fatal("the joined hello opened no session")
	}
}

func TestANewHelloTearsDownWhatTheOldSessionLeft(t *testing.T) {
	a, out, clock := newSessionAgent(t)
	// A session whose host is gone, its EOF not yet heard, with a process still running.
	a.sid = "old"
	a.w.startSession("old")
	if _, err := a.procs.spawn(spawnReq{Name: "left", Argv: []string{"sleep", "60"}}, a.w); err != nil {
		t.Fatal(err)
	}
	serve(t, a, clock, helloLine("eeeeeeeeeeeeeeee2"))
	if sid := a.sessionID(); !strings.HasPrefix(sid, "eeeeeeeeeeeeeeee2.") {
		t.Fatalf("session %q, want the new hello's", sid)
	}
	if n := a.procs.count(); n != 0 {
		t.Fatalf("%d processes of the old session still run", n)
	}
	waitFor(t, out, `eeeeeeeeeeeeeeee2.`)
}
