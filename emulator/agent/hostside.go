package main

// Host mode: the same executor on the machine that runs the lab, for the external hosts of a bump
// in the wire (network namespaces joined to the lab's wire ports through host taps). The host's
// run starts it as a child, talks to it over a root-only Unix socket with the same signed frames,
// and the plan's host-side steps, processes and samplers run through it exactly as the lab's do.
// It serves one session and exits when that session ends, so a killed run leaves nothing behind:
// the session's end tears down its processes and its namespaces (only those named by -netns-prefix).

import (
	"fmt"
	"log"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func serveHost(socket, keyFile, prefix string, start time.Time) {
	if !strings.HasPrefix(prefix, "lfn") || strings.HasPrefix(prefix, "lfn-") {
		// The lab's own prefix must never be reset on a host: it could be another tool's.
		log.Fatalf("-netns-prefix %q: must start with lfn and not be the lab's lfn-", prefix)
	}
	nsPrefix = prefix
	// The external hosts' names are the host's, not the run's: a second wire run beside this one
	// would reset the first one's namespaces. Held until this process exits, however it exits.
	if err := lockHosts(hostsLockPath(prefix)); err != nil {
		log.Fatalf("%v", err)
	}
	key := []byte(strings.TrimSpace(readTrim(keyFile)))
	if len(key) < 32 {
		log.Fatalf("no channel key at %s", keyFile)
	}
	conn, err := acceptOne(socket)
	if err != nil {
		log.Fatalf("%v", err)
	}
	boot := &bootReport{Modules: []moduleLoad{}, Mounts: []string{}, BootMs: time.Since(start).Milliseconds()}
	a := &agent{key: key, w: newWriter(conn, key), procs: newRegistry(), boot: boot, version: version, onHost: true}
	log.Printf("host side ready on %s (agent %s, kernel %s)", socket, version, kernelRelease())
	a.serve(conn)
}

// hostsLockPath is one file per prefix on the host, whatever directory the run uses.
func hostsLockPath(prefix string) string {
	return fmt.Sprintf("/run/%shosts.lock", prefix)
}

// lockHosts takes the host-wide lock on the external hosts' names, or says which run holds it.
// The kernel drops a flock with the last descriptor, so a killed agent never leaves it held.
func lockHosts(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %v", path, err)
	}
	// A run that just ended may still be tearing its hosts down: give it a few seconds.
	deadline := time.Now().Add(hostsLockWait)
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		holder := strings.TrimSpace(readTrim(path))
		f.Close()
		return fmt.Errorf("another bump in the wire is running on this host (its agent, pid %s, holds %s): one wire run at a time per lab host, as they share the external hosts' names (%s*)", holder, path, nsPrefix)
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	// Deliberately never closed: the descriptor holds the lock for the agent's life.
	hostsLock = f
	return nil
}

var hostsLock *os.File

const hostsLockWait = 5 * time.Second

// acceptOne listens on a fresh root-only socket and returns its first connection; nobody else
// can connect after it, as the listener is closed and the socket file removed.
func acceptOne(socket string) (net.Conn, error) {
	os.Remove(socket)
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", socket)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %v", socket, err)
	}
	defer ln.Close()
	defer os.Remove(socket)
	// The one line on stdout: the run that started us connects when it reads it.
	fmt.Println("listening")
	// The run connects within seconds of starting us; a run that died first must not leave us waiting.
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(60 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("no host connected to %s: %v", socket, err)
	}
	return c, nil
}
