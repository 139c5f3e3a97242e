package main

// TCP's memory limit for the lab's kernel. The kernel sizes net.ipv4.tcp_mem for one host (about 9 %
// of memory at most), but a lab's senders and receivers share one guest's memory: 32 streams with
// 2.5 MB windows queue more than that, the kernel enters memory pressure and shrinks every
// socket's buffers and windows, and flows crawl at a few Mbit/s where separate hosts would fill the
// link. TCP gets most of the guest instead, which holds nothing else of size.

import (
	"fmt"
	"os"
)

// tcpMemPages gives tcp_mem (no pressure below, pressure from, hard limit; in 4 KiB pages) for a guest
// of memBytes: a quarter, a half and five eighths of its memory.
func tcpMemPages(memBytes uint64) [3]uint64 {
	pages := memBytes / 4096
	return [3]uint64{pages / 4, pages / 2, pages * 5 / 8}
}

// raiseTcpMem writes tcp_mem for this guest's memory; it returns what failed, empty on success.
func raiseTcpMem() string {
	m := tcpMemPages(memTotalBytes())
	v := fmt.Sprintf("%d %d %d", m[0], m[1], m[2])
	if err := os.WriteFile("/proc/sys/net/ipv4/tcp_mem", []byte(v), 0o644); err != nil {
		return err.Error()
	}
	return ""
}
