package main

import (
	"io"
	"net"
	"testing"
)

// The session loop sees one host at a time: a second is refused while the first holds the
// channel, the first's close reads as EOF, and the next read belongs to the next host.
func TestNetPortOneHostAtATime(t *testing.T) {
	p := newNetPort()
	hostA, agentA := net.Pipe()
	hostB, agentB := net.Pipe()
	if !p.claim(agentA) {
		t.Fatal("first host refused")
	}
	if p.claim(agentB) {
		t.Fatal("second host admitted while the first holds the channel")
	}
	go hostA.Write([]byte("hello A\n"))
	buf := make([]byte, 64)
	n, err := p.Read(buf)
	if err != nil || string(buf[:n]) != "hello A\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	go func() { io.ReadAll(hostA) }()
	if n, _ := p.Write([]byte("to A\n")); n != 5 {
		t.Fatalf("write returned %d", n)
	}
	hostA.Close()
	if _, err := p.Read(buf); err != io.EOF {
		t.Fatalf("a closed host reads as %v, want EOF", err)
	}
	// No host: writes are dropped without an error (the writer's buffer would keep one for good).
	if n, err := p.Write([]byte("nobody\n")); n != 7 || err != nil {
		t.Fatalf("write without a host: %d, %v", n, err)
	}
	if !p.claim(agentB) {
		t.Fatal("next host refused after the first left")
	}
	go hostB.Write([]byte("hello B\n"))
	n, err = p.Read(buf)
	if err != nil || string(buf[:n]) != "hello B\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
}
