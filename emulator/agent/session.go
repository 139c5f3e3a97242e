package main

// The request loop: authenticate, order-check, dispatch. One host client at a time; a client
// that disconnects or goes silent while work is running gets its work torn down.

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// nsPrefix names the namespaces reset removes: the lab's own, or on a lab host (-host) the
// external hosts' (hostside.go), never anything else of that host.
var nsPrefix = "lfn-"

type agent struct {
	key     []byte
	w       *writer
	procs   *registry
	boot    *bootReport
	version string

	mu       sync.Mutex
	sid      string
	inSeq    uint64
	lastSeen time.Time
	// lastSeenWall is the host's clock (the RTC) at the last frame: the watchdog counts host
	// seconds, because a dilated guest's own clock can run hundreds of times faster than the
	// host's while it idles.
	lastSeenWall int64
	watchdog     time.Duration
	sched        timetable
	// onHost: the agent runs on a lab host for the external hosts of a bump in the wire
	// (hostside.go): one session, no poweroff, and it exits when the session ends.
	onHost bool
}

type helloBody struct {
	Proto      int    `json:"proto"`
	Client     string `json:"client"`
	Nonce      string `json:"nonce"`
	WatchdogMs int    `json:"watchdogMs"`
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// eofGraceS is how long, in host seconds, reads must keep returning EOF before the session ends.
// virtio-serial tells the guest of the host's connects and disconnects on a control queue apart
// from the data: a new host's hello can be read before the guest hears that host connected, and
// the read after it still returns the old EOF. Ending the session on that EOF dropped the hello's
// answer (about 1 connection in 75 back to back, measured), and the host waited out its minute.
// A host that connects within the grace replaces the old session with its hello (see hello).
const eofGraceS = 2

// hostClock is the host's time in whole seconds (wallSeconds); tests replace it.
var hostClock = wallSeconds

func (a *agent) serve(port io.Reader) {
	r := bufio.NewReaderSize(port, 1<<20)
	go a.watch()
	// A line cut by a passing EOF is kept and joined to the rest when it comes; a lasting EOF
	// (a host really gone) drops it, as nobody will finish it.
	var cut []byte
	eofSince := int64(-1)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// On virtio-serial a read returns EOF while no host end is connected.
			if a.onHost {
				a.endSession("host disconnected")
				os.Exit(0)
			}
			cut = append(cut, line...)
			now := hostClock()
			if eofSince < 0 {
				eofSince = now
			}
			if now-eofSince >= eofGraceS {
				cut = nil
				a.endSession("host disconnected")
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		eofSince = -1
		if len(cut) > 0 {
			line, cut = append(cut, line...), nil
		}
		a.handleLine(line)
	}
}

func (a *agent) handleLine(line []byte) {
	f, err := decodeFrame(a.key, line)
	if err != nil {
		// Never act on unauthenticated input; say why only when a session is open.
		log.Printf("rejected frame: %v", err)
		a.w.send("error", 0, map[string]string{"message": "rejected frame: " + err.Error()})
		return
	}
	if f.V != protoVersion {
		a.w.send("error", f.ID, map[string]interface{}{
			"message": fmt.Sprintf("protocol version %d not supported; agent speaks %d", f.V, protoVersion),
		})
		return
	}
	if f.Type == "hello" {
		a.hello(f)
		return
	}
	a.mu.Lock()
	okSession := a.sid != "" && f.Sid == a.sid && f.Seq > a.inSeq
	if okSession {
		a.inSeq = f.Seq
		a.lastSeen = time.Now()
		a.lastSeenWall = wallSeconds()
	}
	a.mu.Unlock()
	if !okSession {
		a.w.send("error", f.ID, map[string]string{"message": "frame outside the current session or replayed"})
		return
	}
	go a.dispatch(f)
}

func (a *agent) hello(f *frame) {
	var h helloBody
	json.Unmarshal(f.Body, &h)
	if h.Proto != protoVersion || len(h.Nonce) < 16 {
		a.w.startSession(f.Sid)
		a.w.send("error", f.ID, map[string]interface{}{
			"message": fmt.Sprintf("hello needs proto %d and a nonce (got proto %d)", protoVersion, h.Proto),
		})
		return
	}
	// One host at a time: a hello means whoever held the session is gone, heard yet or not (serve),
	// so what it left is torn down before the new session starts.
	a.endSession("host gone: a new host session began")
	// The session id mixes both nonces, so a recorded session cannot be replayed into a new one.
	sid := h.Nonce + "." + randomHex(16)
	a.mu.Lock()
	a.sid, a.inSeq, a.lastSeen, a.lastSeenWall = sid, f.Seq, time.Now(), wallSeconds()
	a.watchdog = time.Duration(h.WatchdogMs) * time.Millisecond
	a.mu.Unlock()
	a.w.startSession(sid)
	a.w.send("hello", f.ID, map[string]interface{}{
		"proto": protoVersion, "agent": a.version, "sid": sid, "kernel": kernelRelease(),
		"bootId": readTrim("/proc/sys/kernel/random/boot_id"), "uptimeS": uptimeSeconds(),
		"running": a.procs.count(),
	})
}

// endSession forgets the session and, if it left work behind, tears the work down.
func (a *agent) endSession(why string) bool {
	a.mu.Lock()
	had := a.sid != ""
	a.sid = ""
	a.mu.Unlock()
	// Nothing the host scheduled may start once nobody listens.
	a.sched.stop()
	if !had {
		return false
	}
	a.w.disconnect()
	if a.procs.count() > 0 || len(listNamespaces()) > 0 {
		rep := a.reset()
		log.Printf("%s: stopped %v, removed namespaces %v", why, rep.Killed, rep.Namespaces)
	} else {
		log.Printf("%s", why)
	}
	return true
}

// watch ends a session whose host stopped sending (the host pings every second while it works).
// Silence must last the watchdog on both clocks: the guest's (cheap to read) and the host's (the
// RTC, read only once the guest's says so).
func (a *agent) watch() {
	for range time.Tick(500 * time.Millisecond) {
		a.mu.Lock()
		stale := a.sid != "" && a.watchdog > 0 && time.Since(a.lastSeen) > a.watchdog
		seenWall, limit := a.lastSeenWall, int64(a.watchdog/time.Second)+1
		a.mu.Unlock()
		if stale && wallSeconds()-seenWall > limit {
			a.endSession("host silent past the watchdog")
		}
	}
}

// wallSeconds is the host's clock as the guest can see it: qemu drives the CMOS RTC from the
// host's time whatever drives the guest's own clock. One-second resolution is plenty for a
// watchdog.
func wallSeconds() int64 {
	if v, err := strconv.ParseInt(readTrim("/sys/class/rtc/rtc0/since_epoch"), 10, 64); err == nil {
		return v
	}
	return time.Now().Unix()
}

func (a *agent) reply(id uint64, body interface{}, err error) {
	if err != nil {
		a.w.send("error", id, map[string]string{"message": err.Error()})
		return
	}
	a.w.send("result", id, body)
}

func (a *agent) dispatch(f *frame) {
	switch f.Type {
	case "ping":
		// The guest's clock rides on every heartbeat: the host follows the lab's time by it.
		a.w.send("pong", f.ID, map[string]interface{}{"running": a.procs.count(), "monotonicMs": monoMs()})
	case "schedule":
		var req scheduleReq
		if err := json.Unmarshal(f.Body, &req); err != nil {
			a.reply(f.ID, nil, err)
			return
		}
		a.schedule(f.ID, req)
	case "exec":
		var req execReq
		if err := json.Unmarshal(f.Body, &req); err != nil {
			a.reply(f.ID, nil, err)
			return
		}
		results, ok := runSteps(req)
		a.reply(f.ID, map[string]interface{}{"ok": ok, "results": results}, nil)
	case "spawn":
		var req spawnReq
		if err := json.Unmarshal(f.Body, &req); err != nil {
			a.reply(f.ID, nil, err)
			return
		}
		pid, err := a.procs.spawn(req, a.w)
		a.reply(f.ID, map[string]interface{}{"pid": pid}, err)
	case "signal":
		var req struct {
			Name   string `json:"name"`
			Signal string `json:"signal"`
		}
		json.Unmarshal(f.Body, &req)
		a.reply(f.ID, map[string]bool{"ok": true}, a.procs.signal(req.Name, req.Signal))
	case "reset":
		a.reply(f.ID, a.reset(), nil)
	case "info":
		a.reply(f.ID, a.info(), nil)
	case "clock":
		// The lab's own clocks: samplers stamp records with them, so the host aligns on them.
		var mono syscall.Timespec
		clockGettime(&mono)
		a.reply(f.ID, map[string]float64{
			"realtimeMs":  float64(time.Now().UnixNano()) / 1e6,
			"monotonicMs": float64(mono.Nano()) / 1e6,
		}, nil)
	case "poweroff":
		if a.onHost {
			a.reply(f.ID, nil, fmt.Errorf("poweroff is refused on a lab host: the agent there runs beside everything else"))
			return
		}
		a.reset()
		a.reply(f.ID, map[string]bool{"ok": true}, nil)
		time.Sleep(100 * time.Millisecond) // let the reply leave before the VM stops
		powerOff()
	default:
		a.reply(f.ID, nil, fmt.Errorf("unknown request type %q", f.Type))
	}
}

type resetReport struct {
	Killed     []string `json:"killed"`
	Namespaces []string `json:"namespaces"`
	Errors     []string `json:"errors"`
}

// reset returns the lab to its booted state: no supervised processes, no lfn- namespaces.
func (a *agent) reset() resetReport {
	a.sched.stop()
	rep := resetReport{Killed: a.procs.stopAll(2 * time.Second), Namespaces: []string{}, Errors: []string{}}
	for _, ns := range listNamespaces() {
		// Anything still running inside keeps the namespace alive after `ip netns del`.
		pids := runOnce(step{Argv: []string{"ip", "netns", "pids", ns}})
		for _, p := range strings.Fields(pids.Stdout) {
			if pid, err := strconv.Atoi(p); err == nil && pid > 1 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		r := runOnce(step{Argv: []string{"ip", "netns", "del", ns}})
		if r.Code != 0 {
			rep.Errors = append(rep.Errors, fmt.Sprintf("ip netns del %s: %s", ns, r.Stderr))
			continue
		}
		rep.Namespaces = append(rep.Namespaces, ns)
	}
	if a.onHost {
		// On a lab host the wire's bridges live in the host's own namespace: they go too.
		for _, dev := range hostLinks() {
			if r := runOnce(step{Argv: []string{"ip", "link", "del", dev}}); r.Code != 0 {
				rep.Errors = append(rep.Errors, fmt.Sprintf("ip link del %s: %s", dev, r.Stderr))
			}
		}
	}
	return rep
}

// hostLinks lists this namespace's links of the agent's prefix (a wire's bridges on a lab host).
func hostLinks() []string { return prefixed("/sys/class/net") }

func listNamespaces() []string { return prefixed("/run/netns") }

// prefixed lists the entries of dir whose names start with the agent's prefix: what it may remove.
func prefixed(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := []string{}
	for _, e := range entries {
		if len(e.Name()) > len(nsPrefix) && strings.HasPrefix(e.Name(), nsPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}
