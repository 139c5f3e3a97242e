package main

// Synchronous steps: the plan's ip/tc/sysctl commands, run one after another.

import (
	"bytes"
	"context"
	"os/exec"
	"syscall"
	"time"
)

type step struct {
	Argv      []string `json:"argv"`
	Stdin     string   `json:"stdin,omitempty"`
	TimeoutMs int      `json:"timeoutMs,omitempty"`
	// AllowFail marks best-effort steps (teardown); their failure does not stop the batch.
	AllowFail bool `json:"allowFail,omitempty"`
	// Until repeats the step until it succeeds (and prints something, if asked): a bounded wait
	// for a condition, e.g. a server's port appearing, instead of a sleep.
	Until *struct {
		TimeoutMs      int  `json:"timeoutMs"`
		IntervalMs     int  `json:"intervalMs"`
		StdoutNonEmpty bool `json:"stdoutNonEmpty"`
	} `json:"until,omitempty"`
}

type stepResult struct {
	Argv     []string `json:"argv"`
	Code     int      `json:"code"`
	Stdout   string   `json:"stdout"`
	Stderr   string   `json:"stderr"`
	Ms       float64  `json:"ms"`
	Attempts int      `json:"attempts,omitempty"`
	Error    string   `json:"error,omitempty"`
}

type execReq struct {
	Steps       []step `json:"steps"`
	StopOnError bool   `json:"stopOnError"`
}

func runOnce(s step) stepResult {
	timeout := time.Duration(s.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	res := stepResult{Argv: s.Argv, Code: -1}
	if len(s.Argv) == 0 {
		res.Error = "empty argv"
		return res
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if s.Stdin != "" {
		cmd.Stdin = bytes.NewBufferString(s.Stdin)
	}
	if err := cmd.Start(); err != nil {
		res.Error = err.Error()
		return res
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil && cmd.ProcessState == nil {
			res.Error = err.Error()
		}
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-waited
		res.Error = "timed out after " + timeout.String()
	}
	if cmd.ProcessState != nil {
		res.Code = cmd.ProcessState.ExitCode()
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.Ms = float64(time.Since(start).Microseconds()) / 1000
	return res
}

func runStep(s step) stepResult {
	if s.Until == nil {
		return runOnce(s)
	}
	interval := time.Duration(s.Until.IntervalMs) * time.Millisecond
	if interval <= 0 {
		interval = 50 * time.Millisecond
	}
	deadline := time.Now().Add(time.Duration(s.Until.TimeoutMs) * time.Millisecond)
	for attempt := 1; ; attempt++ {
		r := runOnce(s)
		r.Attempts = attempt
		good := r.Code == 0 && r.Error == "" && (!s.Until.StdoutNonEmpty || len(bytes.TrimSpace([]byte(r.Stdout))) > 0)
		if good {
			return r
		}
		if time.Now().After(deadline) {
			if r.Error == "" {
				r.Error = "condition not met before the deadline"
			}
			if r.Code == 0 {
				r.Code = 1
			}
			return r
		}
		time.Sleep(interval)
	}
}

func runSteps(req execReq) ([]stepResult, bool) {
	results := []stepResult{}
	ok := true
	for _, s := range req.Steps {
		r := runStep(s)
		results = append(results, r)
		if r.Code != 0 || r.Error != "" {
			if !s.AllowFail {
				ok = false
				if req.StopOnError {
					break
				}
			}
		}
	}
	return results, ok
}
