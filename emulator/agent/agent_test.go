package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

var testKey = []byte(strings.Repeat("k", 64))

func TestFrameMACIsCheckedBeforeParsing(t *testing.T) {
	payload := []byte(`{"v":1,"sid":"s","seq":1,"type":"ping","id":2}`)
	line := append(append(append([]byte{}, payload...), '\t'), sign(testKey, payload)...)
	f, err := decodeFrame(testKey, line)
	if err != nil || f.Type != "ping" || f.ID != 2 {
		t.Fatalf("good frame rejected: %v %+v", err, f)
	}
	tampered := bytes.Replace(line, []byte(`"seq":1`), []byte(`"seq":9`), 1)
	if _, err := decodeFrame(testKey, tampered); err != errBadMAC {
		t.Fatalf("tampered frame accepted: %v", err)
	}
	if _, err := decodeFrame([]byte(strings.Repeat("x", 64)), line); err != errBadMAC {
		t.Fatalf("frame under another key accepted: %v", err)
	}
	if _, err := decodeFrame(testKey, []byte("not json\tabc")); err != errBadMAC {
		t.Fatalf("garbage accepted: %v", err)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestWriterDropsFramesOfEndedSessions(t *testing.T) {
	var out syncBuf
	w := newWriter(&out, testKey)
	w.send("output", 0, "before any session")
	w.startSession("one")
	w.send("result", 1, "kept")
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(out.String(), "kept") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	w.disconnect()
	w.send("output", 0, "after disconnect")
	if got := out.String(); strings.Contains(got, "before any session") || strings.Contains(got, "after disconnect") || !strings.Contains(got, "kept") {
		t.Fatalf("unexpected frames on the port: %q", got)
	}
	if w.droppedFrames() != 2 {
		t.Fatalf("dropped %d frames, want 2", w.droppedFrames())
	}
}

func TestStepsStopAtFirstFailureUnlessAllowed(t *testing.T) {
	res, ok := runSteps(execReq{StopOnError: true, Steps: []step{
		{Argv: []string{"true"}},
		{Argv: []string{"false"}, AllowFail: true},
		{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}},
		{Argv: []string{"true"}},
	}})
	if ok || len(res) != 3 {
		t.Fatalf("ok=%v after %d steps, want failure after 3", ok, len(res))
	}
	if res[2].Code != 3 || res[2].Stdout != "out\n" || res[2].Stderr != "err\n" {
		t.Fatalf("step result %+v", res[2])
	}
}

func TestStepTimeoutKillsTheProcessGroup(t *testing.T) {
	start := time.Now()
	r := runOnce(step{Argv: []string{"sh", "-c", "sleep 30 & sleep 30"}, TimeoutMs: 200})
	if r.Error == "" || time.Since(start) > 5*time.Second {
		t.Fatalf("timeout not enforced: %+v after %v", r, time.Since(start))
	}
}

func TestUntilRetriesUntilTheConditionHolds(t *testing.T) {
	// A command that prints nothing the first time it runs and "ready" every time after: the
	// condition turns true because of an attempt, not because a timer raced it.
	script := t.TempDir() + "/ready.sh"
	body := "#!/bin/sh\nif [ -e \"$0.seen\" ]; then echo ready; else touch \"$0.seen\"; fi\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s := step{Argv: []string{script}}
	s.Until = &struct {
		TimeoutMs      int  `json:"timeoutMs"`
		IntervalMs     int  `json:"intervalMs"`
		StdoutNonEmpty bool `json:"stdoutNonEmpty"`
	}{TimeoutMs: 3000, IntervalMs: 20, StdoutNonEmpty: true}
	r := runStep(s)
	if r.Code != 0 || r.Attempts != 2 || strings.TrimSpace(r.Stdout) != "ready" {
		t.Fatalf("until: %+v", r)
	}
}

func waitFor(t *testing.T, out *syncBuf, want string) {
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q in %q", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSpawnReportsExitAndStopAllKills(t *testing.T) {
	var out syncBuf
	w := newWriter(&out, testKey)
	w.startSession("s")
	reg := newRegistry()
	if _, err := reg.spawn(spawnReq{Name: "echo", Argv: []string{"sh", "-c", "echo hello"}}, w); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &out, `"stdout":"hello\n"`)
	if _, err := reg.spawn(spawnReq{Name: "sleeper", Argv: []string{"sleep", "60"}}, w); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.spawn(spawnReq{Name: "sleeper", Argv: []string{"true"}}, w); err == nil {
		t.Fatal("duplicate name accepted")
	}
	start := time.Now()
	killed := reg.stopAll(2 * time.Second)
	if reg.count() != 0 || len(killed) != 1 || killed[0] != "sleeper" || time.Since(start) > 2*time.Second {
		t.Fatalf("after stopAll: %d running, killed %v in %v", reg.count(), killed, time.Since(start))
	}
	waitFor(t, &out, `"name":"sleeper","signal":"terminated"`)
}

func TestParseStatSchedCountsFieldsFromTheLastParen(t *testing.T) {
	// A comm with a space and a ')' inside, then fields 3 to 52 of /proc/PID/stat: rt_priority 10
	// (field 40) and policy 1 (field 41, SCHED_FIFO).
	fields := make([]string, 50)
	for i := range fields {
		fields[i] = "0"
	}
	fields[0] = "S"
	fields[37], fields[38] = "10", "1"
	line := "12 (ksoftirqd/0 x)) " + strings.Join(fields, " ")
	comm, policy, prio, err := parseStatSched(line)
	if err != nil || comm != "ksoftirqd/0 x)" || policy != schedFIFO || prio != 10 {
		t.Fatalf("got %q %d %d %v", comm, policy, prio, err)
	}
	if _, _, _, err := parseStatSched("12 (short) S 1 2"); err == nil {
		t.Fatal("a short stat line was accepted")
	}
}

func TestTcpMemGivesTcpMostOfTheGuest(t *testing.T) {
	// A 2 GiB lab (MemTotal 2012380 kB measured): pressure from 983 MiB, the limit at 1228 MiB.
	got := tcpMemPages(2012380 * 1024)
	if got != [3]uint64{125773, 251547, 314434} {
		t.Fatalf("tcp_mem for 2012380 kB: %v", got)
	}
}
