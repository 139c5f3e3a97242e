package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// firedEvents decodes the `fired` frames written so far.
func firedEvents(t *testing.T, out string) []map[string]interface{} {
	t.Helper()
	var evs []map[string]interface{}
	for _, line := range strings.Split(out, "\n") {
		i := strings.LastIndexByte(line, '\t')
		if i < 0 {
			continue
		}
		var f struct {
			Type string          `json:"type"`
			Body json.RawMessage `json:"body"`
		}
		if json.Unmarshal([]byte(line[:i]), &f) != nil || f.Type != "fired" {
			continue
		}
		var ev map[string]interface{}
		json.Unmarshal(f.Body, &ev)
		evs = append(evs, ev)
	}
	return evs
}

func newTestAgent(out *syncBuf) *agent {
	a := &agent{key: testKey, w: newWriter(out, testKey), procs: newRegistry()}
	a.w.startSession("s")
	return a
}

func TestTimetableFiresItemsOnTimeFromT0(t *testing.T) {
	var out syncBuf
	a := newTestAgent(&out)
	a.schedule(1, scheduleReq{LeadMs: 20, Items: []scheduleItem{
		{Tag: "late", AtMs: 60, Exec: &execReq{Steps: []step{{Argv: []string{"true"}}}}},
		{Tag: "first", AtMs: 0, Exec: &execReq{Steps: []step{{Argv: []string{"true"}}}}},
	}})
	deadline := time.Now().Add(3 * time.Second)
	for len(firedEvents(t, out.String())) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	evs := firedEvents(t, out.String())
	if len(evs) != 2 || evs[0]["tag"] != "first" || evs[1]["tag"] != "late" {
		t.Fatalf("fired %v, want first then late", evs)
	}
	for _, ev := range evs {
		at, got := ev["atMs"].(float64), ev["tMs"].(float64)
		if got < at || got > at+30 {
			t.Fatalf("%s fired at %.1f ms from t0, asked for %.1f", ev["tag"], got, at)
		}
	}
	// The reply with t0 went out before any item could fire.
	if i, j := strings.Index(out.String(), `"type":"result"`), strings.Index(out.String(), `"type":"fired"`); i < 0 || i > j {
		t.Fatalf("t0 reply not ahead of the fired events: %q", out.String())
	}
}

func TestResetCancelsWhatHasNotFired(t *testing.T) {
	var out syncBuf
	a := newTestAgent(&out)
	a.schedule(1, scheduleReq{Items: []scheduleItem{
		{Tag: "never", AtMs: 200, Spawn: &spawnReq{Name: "never", Argv: []string{"true"}}},
	}})
	a.sched.stop()
	// A marker due after the cancelled item: once it has fired, the cancelled one would have too.
	a.schedule(2, scheduleReq{Items: []scheduleItem{
		{Tag: "marker", AtMs: 250, Exec: &execReq{Steps: []step{{Argv: []string{"true"}}}}},
	}})
	deadline := time.Now().Add(3 * time.Second)
	for len(firedEvents(t, out.String())) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if evs := firedEvents(t, out.String()); len(evs) != 1 || evs[0]["tag"] != "marker" {
		t.Fatalf("fired %v, want only the marker", evs)
	}
	if a.procs.count() != 0 {
		t.Fatalf("cancelled spawn started a process")
	}
}

func TestItemsDueTogetherStartInPlanOrder(t *testing.T) {
	var out syncBuf
	a := newTestAgent(&out)
	var items []scheduleItem
	for i := 0; i < 24; i++ {
		name := "c" + string(rune('a'+i))
		items = append(items, scheduleItem{Tag: name, AtMs: 0, Spawn: &spawnReq{Name: name, Argv: []string{"true"}}})
	}
	a.schedule(1, scheduleReq{LeadMs: 10, Items: items})
	deadline := time.Now().Add(5 * time.Second)
	for len(firedEvents(t, out.String())) < len(items) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	evs := firedEvents(t, out.String())
	if len(evs) != len(items) {
		t.Fatalf("fired %d of %d items", len(evs), len(items))
	}
	for i, ev := range evs {
		if ev["tag"] != items[i].Tag {
			t.Fatalf("item %d fired as %v, want %s (plan order)", i, ev["tag"], items[i].Tag)
		}
	}
}

func TestASlowCommandHoldsBackNoStartDueWithIt(t *testing.T) {
	var out syncBuf
	a := newTestAgent(&out)
	a.schedule(1, scheduleReq{LeadMs: 10, Items: []scheduleItem{
		{Tag: "slow", AtMs: 0, Exec: &execReq{Steps: []step{{Argv: []string{"sleep", "0.5"}}}}},
		{Tag: "client", AtMs: 0, Spawn: &spawnReq{Name: "client", Argv: []string{"true"}}},
	}})
	deadline := time.Now().Add(3 * time.Second)
	for len(firedEvents(t, out.String())) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	evs := firedEvents(t, out.String())
	if len(evs) != 2 || evs[0]["tag"] != "client" {
		t.Fatalf("fired %v, want the client before the slow command ends", evs)
	}
	if got := evs[0]["tMs"].(float64); got > 100 {
		t.Fatalf("client started %.1f ms after t0 behind a slow command", got)
	}
}
