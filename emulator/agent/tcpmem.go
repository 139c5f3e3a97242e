package main

// TCP's memory limit for the lab's kernel. The kernel sizes net.ipv4.tcp_mem for one host (about 9 %
// of memory at most), but a lab's senders and receivers share one guest's memory: 32 streams with
// 2.5 MB windows queue more than that, the kernel enters memory pressure and shrinks every
// socket's buffers and windows, and flows crawl at a few Mbit/s where separate hosts would fill the
// link. TCP gets most of the guest instead, which holds nothing else of size.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// tcpMemPages gives tcp_mem (no pressure below, pressure from, hard limit; in 4 KiB pages) for a guest
// of memTotalKiB: a quarter, a half and five eighths of its memory.
func tcpMemPages(memTotalKiB int64) [3]int64 {
	pages := memTotalKiB / 4
	return [3]int64{pages / 4, pages / 2, pages * 5 / 8}
}

// memTotalKiB reads MemTotal from /proc/meminfo.
func memTotalKiB() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no MemTotal in /proc/meminfo")
}

// raiseTcpMem writes tcp_mem for this guest's memory; it returns what failed, empty on success.
func raiseTcpMem() string {
	kib, err := memTotalKiB()
	if err != nil {
		return err.Error()
	}
	m := tcpMemPages(kib)
	v := fmt.Sprintf("%d %d %d", m[0], m[1], m[2])
	if err := os.WriteFile("/proc/sys/net/ipv4/tcp_mem", []byte(v), 0o644); err != nil {
		return err.Error()
	}
	return ""
}
