package main

// Supervised processes: each in its own process group, so a kill reaches everything it started
// (ip netns exec execs in place, but tools may fork).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"time"
)

type spawnReq struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	// Stream sends stdout as `output` events while the process runs; otherwise stdout is kept
	// (up to Limit bytes) and returned in the `exit` event.
	Stream bool `json:"stream"`
	Limit  int  `json:"limit"`
}

type proc struct {
	name    string
	argv    []string
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{}
}

type registry struct {
	mu    sync.Mutex
	procs map[string]*proc
}

func newRegistry() *registry { return &registry{procs: map[string]*proc{}} }

// capped keeps the first Limit bytes and counts what it had to drop, so truncation is visible.
type capped struct {
	buf     bytes.Buffer
	limit   int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.limit - c.buf.Len()
	if room < len(p) {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.dropped += len(p) - maxInt(room, 0)
		return len(p), nil
	}
	return c.buf.Write(p)
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func (r *registry) spawn(req spawnReq, w *writer) (int, error) {
	if req.Name == "" || len(req.Argv) == 0 {
		return 0, fmt.Errorf("spawn needs a name and an argv")
	}
	if req.Limit <= 0 {
		req.Limit = 64 << 20
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.procs[req.Name]; busy {
		return 0, fmt.Errorf("a process named %q is already running", req.Name)
	}
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &capped{limit: 1 << 20}
	cmd.Stderr = stderr
	var stdout *capped
	var pipe io.ReadCloser
	var err error
	if req.Stream {
		if pipe, err = cmd.StdoutPipe(); err != nil {
			return 0, err
		}
	} else {
		stdout = &capped{limit: req.Limit}
		cmd.Stdout = stdout
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	p := &proc{name: req.Name, argv: req.Argv, cmd: cmd, started: time.Now(), done: make(chan struct{})}
	r.procs[req.Name] = p
	streamed := make(chan struct{})
	if req.Stream {
		go streamLines(pipe, req.Name, w, streamed)
	} else {
		close(streamed)
	}
	go func() {
		<-streamed // all output events go out before the exit event
		werr := cmd.Wait()
		code, sig := exitStatus(cmd, werr)
		ev := map[string]interface{}{
			"name": req.Name, "code": code, "signal": sig,
			"ms":     time.Since(p.started).Milliseconds(),
			"monoMs": monoMs(),
			"stderr": stderr.buf.String(),
		}
		if stdout != nil {
			ev["stdout"] = stdout.buf.String()
			ev["stdoutDropped"] = stdout.dropped
		}
		r.mu.Lock()
		delete(r.procs, req.Name)
		r.mu.Unlock()
		close(p.done)
		w.send("exit", 0, ev)
	}()
	return cmd.Process.Pid, nil
}

// streamLines batches whole lines into `output` events: one frame per ~100 ms or 32 KiB keeps
// the channel efficient at 100 Hz sampling without holding data back.
func streamLines(pipe io.Reader, name string, w *writer, done chan struct{}) {
	defer close(done)
	lines := make(chan string, 4096)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var batch bytes.Buffer
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	flush := func() {
		if batch.Len() > 0 {
			w.send("output", 0, map[string]interface{}{"name": name, "data": batch.String()})
			batch.Reset()
		}
	}
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				flush()
				return
			}
			batch.WriteString(l)
			batch.WriteByte('\n')
			if batch.Len() >= 32<<10 {
				flush()
			}
		case <-tick.C:
			flush()
		}
	}
}

func exitStatus(cmd *exec.Cmd, err error) (int, string) {
	if cmd.ProcessState == nil {
		return -1, ""
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return cmd.ProcessState.ExitCode(), ""
}

var signals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT}

func (r *registry) signal(name, sig string) error {
	s, ok := signals[sig]
	if !ok {
		return fmt.Errorf("signal must be TERM, INT or KILL")
	}
	r.mu.Lock()
	p := r.procs[name]
	r.mu.Unlock()
	if p == nil {
		return fmt.Errorf("no running process named %q", name)
	}
	return syscall.Kill(-p.cmd.Process.Pid, s)
}

// stopAll sends TERM to every group, waits up to grace, then KILLs what is left.
func (r *registry) stopAll(grace time.Duration) []string {
	r.mu.Lock()
	var ps []*proc
	for _, p := range r.procs {
		ps = append(ps, p)
	}
	r.mu.Unlock()
	names := []string{}
	for _, p := range ps {
		names = append(names, p.name)
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	expired := false
	for _, p := range ps {
		if !expired {
			select {
			case <-p.done:
				continue
			case <-timer.C:
				expired = true
			}
		}
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	sort.Strings(names)
	return names
}

func (r *registry) list() []map[string]interface{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []map[string]interface{}{}
	for _, p := range r.procs {
		out = append(out, map[string]interface{}{
			"name": p.name, "pid": p.cmd.Process.Pid, "argv": p.argv,
			"ms": time.Since(p.started).Milliseconds(),
		})
	}
	return out
}

func (r *registry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.procs)
}
