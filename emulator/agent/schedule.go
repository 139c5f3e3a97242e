package main

// The traffic phase's timetable, kept by the lab itself. Under a dilated clock (qemu's instruction
// counter drives guest time) the host's wall clock says nothing about guest time, and even under a
// realtime clock a start sent "now" over the channel lands late by the channel's latency. So every
// start, scheduled change and probe of a run is timed here, on the guest's CLOCK_MONOTONIC, from a
// t0 the agent picks when the timetable arrives; the host learns t0 and each item's actual time.

import (
	"sync"
	"syscall"
	"time"
)

type scheduleItem struct {
	// Tag names the item in its `fired` event.
	Tag string `json:"tag"`
	// AtMs is the item's time from t0 (negative: at once, before t0).
	AtMs  float64   `json:"atMs"`
	Spawn *spawnReq `json:"spawn,omitempty"`
	Exec  *execReq  `json:"exec,omitempty"`
}

type scheduleReq struct {
	// LeadMs puts t0 this far after the timetable's arrival, so what starts at once (the samplers)
	// is running before the first flow.
	LeadMs float64        `json:"leadMs"`
	Items  []scheduleItem `json:"items"`
}

// timetable holds the cancel channel of the schedule in force; a reset or the end of a session
// cancels every item that has not fired yet.
type timetable struct {
	mu     sync.Mutex
	cancel chan struct{}
}

func (t *timetable) start() chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		close(t.cancel)
	}
	t.cancel = make(chan struct{})
	return t.cancel
}

func (t *timetable) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		close(t.cancel)
		t.cancel = nil
	}
}

func monoMs() float64 {
	var ts syscall.Timespec
	clockGettime(&ts)
	return float64(ts.Nano()) / 1e6
}

// schedule answers with t0 first (the reply is queued before any item can fire, so the host knows
// t0 before the first sample or event that depends on it), then fires each item at t0 + atMs.
func (a *agent) schedule(id uint64, req scheduleReq) {
	cancel := a.sched.start()
	now := monoMs()
	lead := req.LeadMs
	if lead < 0 {
		lead = 0
	}
	t0 := now + lead
	realNow := float64(time.Now().UnixNano()) / 1e6
	a.reply(id, map[string]float64{"t0MonoMs": t0, "t0RealtimeMs": realNow + lead}, nil)
	for _, group := range byTime(req.Items) {
		go a.fireGroup(group, t0, cancel)
	}
}

// byTime groups the items due at the same moment, each group in plan order. A goroutine per item
// let the Go scheduler pick who starts first: 49 clients due at t0 went out in any order over about
// 100 ms of lab time, and the flow the plan lists first could start last.
func byTime(items []scheduleItem) [][]scheduleItem {
	var groups [][]scheduleItem
	at := map[float64]int{}
	for _, it := range items {
		i, ok := at[it.AtMs]
		if !ok {
			i = len(groups)
			at[it.AtMs] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return groups
}

// fireGroup waits for the group's moment, then starts its processes one after another in plan
// order. Commands (probes, scheduled changes) run beside them, so a slow one holds back no start.
func (a *agent) fireGroup(group []scheduleItem, t0 float64, cancel chan struct{}) {
	if wait := t0 + group[0].AtMs - monoMs(); wait > 0 {
		timer := time.NewTimer(time.Duration(wait * float64(time.Millisecond)))
		select {
		case <-timer.C:
		case <-cancel:
			timer.Stop()
			return
		}
	}
	for _, it := range group {
		select {
		case <-cancel:
			return
		default:
		}
		if it.Exec != nil {
			go a.fire(it, t0)
		} else {
			a.fire(it, t0)
		}
	}
}

func (a *agent) fire(it scheduleItem, t0 float64) {
	at := monoMs()
	ev := map[string]interface{}{"tag": it.Tag, "atMs": it.AtMs, "monoMs": at, "tMs": at - t0}
	switch {
	case it.Spawn != nil:
		pid, err := a.procs.spawn(*it.Spawn, a.w)
		ev["pid"] = pid
		if err != nil {
			ev["error"] = err.Error()
		}
	case it.Exec != nil:
		results, ok := runSteps(*it.Exec)
		ev["ok"], ev["results"] = ok, results
	}
	a.w.send("fired", 0, ev)
}
