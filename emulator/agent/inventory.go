package main

// What the lab is: kernel, stacks, modules with hashes and parameters, boot report. Recorded with
// every run so a result can be traced to the exact code that produced it.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

type moduleLoad struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

type bootReport struct {
	Modules []moduleLoad `json:"modules"`
	Mounts  []string     `json:"mountErrors"`
	BootMs  int64        `json:"agentStartMs"`
	// Network is why a lab PC's control port could not be configured (empty when it was).
	Network string `json:"networkError,omitempty"`
	// Softirq is what kept ksoftirqd from real-time priority (empty when every thread has it).
	Softirq string `json:"softirqError,omitempty"`
	// TcpMem is why net.ipv4.tcp_mem could not be raised (empty when it was).
	TcpMem string `json:"tcpMemError,omitempty"`
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func kernelRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

func uptimeSeconds() float64 {
	f := strings.Fields(readTrim("/proc/uptime"))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func sha256File(path string) string {
	fh, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer fh.Close()
	h := sha256.New()
	io.Copy(h, fh)
	return hex.EncodeToString(h.Sum(nil))
}

// modulePaths maps module names (as /proc/modules spells them) to files, from modules.dep.
func modulePaths(rel string) map[string]string {
	out := map[string]string{}
	base := filepath.Join("/lib/modules", rel)
	fh, err := os.Open(filepath.Join(base, "modules.dep"))
	if err != nil {
		return out
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		rel := strings.SplitN(sc.Text(), ":", 2)[0]
		name := filepath.Base(rel)
		for _, ext := range []string{".xz", ".zst", ".gz", ".ko"} {
			name = strings.TrimSuffix(name, ext)
		}
		out[strings.ReplaceAll(name, "-", "_")] = filepath.Join(base, rel)
	}
	return out
}

func loadedModules() []map[string]interface{} {
	rel := kernelRelease()
	paths := modulePaths(rel)
	out := []map[string]interface{}{}
	fh, err := os.Open("/proc/modules")
	if err != nil {
		return out
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 1 {
			continue
		}
		name := f[0]
		params := map[string]string{}
		dir := filepath.Join("/sys/module", name, "parameters")
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				params[e.Name()] = readTrim(filepath.Join(dir, e.Name()))
			}
		}
		m := map[string]interface{}{"name": name, "params": params}
		if p, ok := paths[name]; ok {
			m["file"] = strings.TrimPrefix(p, filepath.Join("/lib/modules", rel)+"/")
			m["sha256"] = sha256File(p)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out
}

// memTotalBytes is the guest's memory as the kernel counts it (MemTotal).
func memTotalBytes() uint64 {
	var si syscall.Sysinfo_t
	syscall.Sysinfo(&si)
	return uint64(si.Totalram) * uint64(si.Unit)
}

func (a *agent) info() map[string]interface{} {
	return map[string]interface{}{
		"agent":           a.version,
		"kernel":          kernelRelease(),
		"cmdline":         readTrim("/proc/cmdline"),
		"cpus":            runtime.NumCPU(),
		"memBytes":        memTotalBytes(),
		"uptimeS":         uptimeSeconds(),
		"clocksource":     readTrim("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
		"stacksAvailable": strings.Fields(readTrim("/proc/sys/net/ipv4/tcp_available_congestion_control")),
		"qdiscModules":    qdiscModules(),
		"modules":         loadedModules(),
		"boot":            a.boot,
		"softirq":         softirqThreads(),
		"namespaces":      listNamespaces(),
		"processes":       a.procs.list(),
		"image":           readTrim("/etc/lfnlab/image-id"),
		"framesDropped":   a.w.dropped,
	}
}

// qdiscModules lists the sch_* modules the image ships, loaded or not.
func qdiscModules() []string {
	out := []string{}
	for name := range modulePaths(kernelRelease()) {
		if strings.HasPrefix(name, "sch_") {
			out = append(out, strings.TrimPrefix(name, "sch_"))
		}
	}
	sort.Strings(out)
	return out
}

// clockGettime reads CLOCK_MONOTONIC, the clock the samplers' mono_ns column uses.
func clockGettime(ts *syscall.Timespec) {
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(ts)), 0)
}
