package main

// ksoftirqd at real-time priority. In a lab the senders, the emulated router and the receivers
// share the guest's CPUs (a dilated lab has one). Once the kernel hands pending softirq work to
// ksoftirqd (a burst longer than about 2 ms, or raised from process context), every packet the
// router forwards and every netem release waits for that thread, and at normal priority it queues
// behind iperf3 for a scheduler slice: milliseconds of delay the spec never asked for. At FIFO
// priority it runs as soon as it is woken, as a separate router's interrupt handling would.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// softirqPriority sits below the samplers (chrt --fifo 20 in realtime labs), so measurement keeps
// its cadence, and above every normal task.
const softirqPriority = 10

const schedFIFO = 1

var policyNames = map[int]string{0: "other", 1: "fifo", 2: "rr", 3: "batch", 5: "idle", 6: "deadline"}

// threadSched is one kernel thread's scheduling class as /proc/PID/stat reports it.
type threadSched struct {
	Pid      int    `json:"pid"`
	Comm     string `json:"comm"`
	Policy   string `json:"policy"`
	Priority int    `json:"priority"`
}

// parseStatSched reads comm, rt_priority (field 40) and policy (field 41) from a /proc/PID/stat
// line. comm may hold spaces and parentheses, so the fields are counted from its last ')'.
func parseStatSched(line string) (comm string, policy, prio int, err error) {
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return "", 0, 0, fmt.Errorf("no (comm) in %q", line)
	}
	rest := strings.Fields(line[close+1:]) // rest[0] is field 3 (state)
	if len(rest) < 39 {
		return "", 0, 0, fmt.Errorf("%d fields after comm, want 39 or more", len(rest))
	}
	if prio, err = strconv.Atoi(rest[37]); err != nil {
		return "", 0, 0, fmt.Errorf("rt_priority %q: %v", rest[37], err)
	}
	if policy, err = strconv.Atoi(rest[38]); err != nil {
		return "", 0, 0, fmt.Errorf("policy %q: %v", rest[38], err)
	}
	return line[open+1 : close], policy, prio, nil
}

// softirqThreads lists every ksoftirqd/N with its scheduling class, by pid.
func softirqThreads() []threadSched {
	out := []threadSched{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		comm, policy, prio, err := parseStatSched(strings.TrimSpace(string(b)))
		if err != nil || !strings.HasPrefix(comm, "ksoftirqd/") {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		name, ok := policyNames[policy]
		if !ok {
			name = strconv.Itoa(policy)
		}
		out = append(out, threadSched{Pid: pid, Comm: comm, Policy: name, Priority: prio})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out
}

// prioritizeSoftirq moves every ksoftirqd thread to SCHED_FIFO at softirqPriority. It returns what
// failed, empty when every thread moved.
func prioritizeSoftirq() string {
	threads := softirqThreads()
	if len(threads) == 0 {
		return "no ksoftirqd thread found"
	}
	var failed []string
	param := struct{ priority int32 }{softirqPriority}
	for _, t := range threads {
		_, _, e := syscall.Syscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(t.Pid), schedFIFO, uintptr(unsafe.Pointer(&param)))
		if e != 0 {
			failed = append(failed, fmt.Sprintf("%s: %v", t.Comm, e))
		}
	}
	return strings.Join(failed, "; ")
}
