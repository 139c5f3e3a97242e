// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-pkttiming: what the emulated link really did to packet timing, measured in the router.
 *
 * One AF_PACKET socket sees every IPv4 frame on every device of the router namespace. Per
 * direction of a path it knows two devices: the bottleneck IFB (a frame leaving it is the
 * bottleneck's dequeue, time D) and the egress veth after the delay stage (time E). Any frame
 * coming in on a non-IFB device is an arrival at the router, except the IFB handing a frame back
 * to the stack just after it left the shaper. Frames are matched across the taps by a hash of
 * their IPv4 header fields (addresses, id, length, protocol) and the first 16 bytes past the IPv4
 * header (ports; TCP's sequence and acknowledgement numbers; UDP's length, checksum and the first
 * 8 payload bytes).
 *
 * Times: frames leaving a device are stamped by the kernel at the tap (SO_TIMESTAMPNS,
 * CLOCK_REALTIME). Arriving frames are not timed: TCP's departure-time stamp (CLOCK_MONOTONIC)
 * survives the veth into the router, so their kernel stamp is not the arrival time. Their order is
 * enough: one socket receives the taps in the order they happened, so "arrived before frame i-1
 * left" is "was read before i-1's departure was read".
 *
 *  - Bottleneck spacing: frame i left D_i after frame i-1 left D_{i-1}. When i had arrived before
 *    i-1 left, the queue was busy and netem scheduled i exactly len_i/rate after i-1, so the gap
 *    should be len_i * 8 / rate. Busy gaps are kept as a histogram of nanoseconds
 *    per byte on 1 % log bins; the host judges them against the rate in force at the time.
 *  - Delay stage: d_i = E_i - D_i, reported as min, p1, p50, p99, max per window.
 *
 * Windows: during W ms of every P ms (default all of every second) frames are captured; outside,
 * a reject-all filter keeps the tap nearly free, so the host can bound the cost at high rates.
 * A window's record also carries the socket's own drops, so a window where the capture lost
 * frames is known and can be left out.
 *
 * Output: TSV on stdout, one `w` record per direction per window; `#end` with counters at exit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lfn_common.h"

#define PROG "lfn-pkttiming"
#define FORMAT_VERSION 1
#define MAX_DIRS 32
#define SNAPLEN 96
#define TABLE_BITS 17
#define TABLE_SIZE (1u << TABLE_BITS)
/*
 * The IFB hands a frame back within a batch of reads of its departure; a frame whose key comes
 * round again (a 16-bit IP id) is at least 65536 of its flow's frames later.
 */
#define REINJECT_READS 1024
/* ns per byte from 0.01 (800 Gbit/s) up, 1 % per bin, to ~1e7 (800 bit/s). */
#define BIN_MIN 0.01
#define BIN_STEP 1.01
#define NBINS 2084
#define MAX_DELAYS 65536

struct dir {
	char name[64];
	char ifb[IF_NAMESIZE], egress[IF_NAMESIZE];
	int ifb_idx, egress_idx;
	uint64_t last_departure; /* D_{i-1}, ns; 0 = none yet in this window */
	uint64_t last_departure_seq; /* its place in the order of reads */
	/* per window */
	uint64_t departures, matched, busy, egressed, delay_n;
	uint32_t bins[NBINS];
	int64_t *delays;
};

struct slot {
	uint64_t key;
	uint64_t arrival;   /* the arrival's place in the order of reads; 0 = not seen */
	uint64_t departure; /* D, ns; 0 = not departed (or already timed through the delay stage) */
	uint64_t departure_seq; /* the departure's place in the order of reads */
};

static struct dir dirs[MAX_DIRS];
static int ndirs;
static struct slot table[TABLE_SIZE];
/* Bad usage or a setup failure: the message, then exit status 2. */
#define die(msg) lfn_die(2, "%s", msg)

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h | 1; /* never 0: 0 marks an empty slot */
}

/*
 * The frame's identity across taps, or 0 when it is not an IPv4 frame we can key. Addresses, IP id,
 * length, protocol and the first 16 bytes past the IP header: ports, TCP's sequence and
 * acknowledgement numbers, UDP's length, checksum and first payload bytes. A 16-bit IP id comes
 * round every 65536 frames of a flow (8.7 s at 90 Mbit/s); without the bytes that differ between
 * those frames, a frame left in the table (lost after the shaper) matched a new one. Checksum
 * offload leaves a UDP checksum that is the same for every datagram of a flow and length, so
 * UDP needs its payload: lfn-udpgen and iperf3 number their datagrams there.
 */
static uint64_t frame_key(const unsigned char *p, size_t caplen)
{
	if (caplen < 14 + 20 || p[12] != 0x08 || p[13] != 0x00) return 0;
	const unsigned char *ip = p + 14;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	uint64_t h = 0;
	memcpy(&h, ip + 12, 8);		  /* saddr, daddr */
	uint64_t id_len = ((uint64_t)ip[4] << 24) | ((uint64_t)ip[5] << 16) | ((uint64_t)ip[2] << 8) | ip[3];
	uint64_t l4 = 0, l4b = 0;
	if (caplen >= 14 + ihl + 8) memcpy(&l4, ip + ihl, 8);
	else if (caplen >= 14 + ihl + 4) memcpy(&l4, ip + ihl, 4);
	if (caplen >= 14 + ihl + 16) memcpy(&l4b, ip + ihl + 8, 8);
	return mix(h ^ mix(id_len ^ ((uint64_t)ip[9] << 40) ^ mix(l4 ^ mix(l4b))));
}

static struct slot *lookup(uint64_t key) { return &table[key & (TABLE_SIZE - 1)]; }

static int bin_of(double ns_per_byte)
{
	if (ns_per_byte <= BIN_MIN) return 0;
	int b = (int)floor(log(ns_per_byte / BIN_MIN) / log(BIN_STEP));
	return b >= NBINS ? NBINS - 1 : b;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void set_filter(int fd, int accept)
{
	/* accept: IPv4 frames, first SNAPLEN bytes; reject: nothing. */
	struct sock_filter on[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SNAPLEN),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_filter off[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = accept ? (struct sock_fprog){ 4, on } : (struct sock_fprog){ 1, off };
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) die("cannot attach the packet filter");
}

static struct dir *dir_by_ifb(int idx)
{
	for (int i = 0; i < ndirs; i++)
		if (dirs[i].ifb_idx == idx) return &dirs[i];
	return NULL;
}

static struct dir *dir_by_egress(int idx)
{
	for (int i = 0; i < ndirs; i++)
		if (dirs[i].egress_idx == idx) return &dirs[i];
	return NULL;
}

static int is_ifb(int idx) { return dir_by_ifb(idx) != NULL; }

static uint64_t captured, arrivals, unkeyed, seq;

static void handle(const unsigned char *buf, size_t caplen, size_t len, const struct sockaddr_ll *ll, uint64_t ts)
{
	uint64_t key = frame_key(buf, caplen);
	if (!key) {
		unkeyed++;
		return;
	}
	captured++;
	seq++;
	struct slot *s = lookup(key);
	if (ll->sll_pkttype != PACKET_OUTGOING) {
		/*
		 * An arrival, unless it is the IFB handing back the frame that just left the shaper. Any
		 * other sighting of a key the table holds is a new frame whose key came round: the old one
		 * was dropped at the shaper or lost after it, and must not lend this one its times.
		 */
		if (is_ifb(ll->sll_ifindex)) return;
		if (s->key == key && s->departure && seq - s->departure_seq <= REINJECT_READS) return;
		s->key = key;
		s->arrival = seq;
		s->departure = 0;
		arrivals++;
		return;
	}
	struct dir *d = dir_by_ifb(ll->sll_ifindex);
	if (d) {
		d->departures++;
		int known = s->key == key && s->arrival;
		if (known) {
			d->matched++;
			if (d->last_departure && s->arrival < d->last_departure_seq && ts > d->last_departure && len > 0) {
				double nspb = (double)(ts - d->last_departure) / (double)len;
				d->bins[bin_of(nspb)]++;
				d->busy++;
			}
			s->departure = ts;
		} else {
			/* No arrival seen (it came before the window): key it for the delay stage anyway. */
			s->key = key;
			s->arrival = 0;
			s->departure = ts;
		}
		s->departure_seq = seq;
		d->last_departure = ts;
		d->last_departure_seq = seq;
		return;
	}
	d = dir_by_egress(ll->sll_ifindex);
	if (d) {
		d->egressed++;
		if (s->key == key && s->departure && ts >= s->departure && d->delay_n < MAX_DELAYS) {
			d->delays[d->delay_n++] = (int64_t)(ts - s->departure);
			s->departure = 0; /* once */
		}
	}
}

static uint64_t records, windows;

static void emit(uint64_t tick, uint64_t real_ns, uint64_t mono_ns, unsigned kernel_drops)
{
	for (int i = 0; i < ndirs; i++) {
		struct dir *d = &dirs[i];
		int64_t q[5] = { 0, 0, 0, 0, 0 };
		if (d->delay_n) {
			qsort(d->delays, d->delay_n, sizeof(int64_t), cmp_i64);
			size_t n = d->delay_n;
			q[0] = d->delays[0];
			q[1] = d->delays[(size_t)(0.01 * (double)(n - 1))];
			q[2] = d->delays[(size_t)(0.50 * (double)(n - 1))];
			q[3] = d->delays[(size_t)(0.99 * (double)(n - 1))];
			q[4] = d->delays[n - 1];
		}
		printf("w\t%llu\t%llu\t%llu\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%lld\t%lld\t%lld\t%lld\t%lld\t%u\t",
		       (unsigned long long)tick, (unsigned long long)real_ns, (unsigned long long)mono_ns, d->name,
		       (unsigned long long)d->departures, (unsigned long long)d->matched, (unsigned long long)d->busy,
		       (unsigned long long)d->egressed, (unsigned long long)d->delay_n, (long long)q[0], (long long)q[1],
		       (long long)q[2], (long long)q[3], (long long)q[4], kernel_drops);
		int first = 1;
		for (int b = 0; b < NBINS; b++)
			if (d->bins[b]) {
				printf("%s%d:%u", first ? "" : ",", b, d->bins[b]);
				first = 0;
			}
		if (first) printf("-");
		printf("\n");
		records++;
		d->departures = d->matched = d->busy = d->egressed = d->delay_n = 0;
		d->last_departure = 0;
		memset(d->bins, 0, sizeof(d->bins));
	}
	fflush(stdout);
	windows++;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s --dir NAME,IFB,EGRESS [--dir ...] [--window-ms W] [--every-ms P] [--max-per-window N]\n"
		"          [--duration S]\n"
		"Measures bottleneck dequeue gaps and delay-stage added delay in the router namespace.\n"
		"  --dir NAME,IFB,EGRESS  a direction: its bottleneck IFB and the device after its delay stage\n"
		"  --window-ms W          capture during W ms of every P ms (default 1000)\n"
		"  --every-ms P           window period (default 1000)\n"
		"  --max-per-window N     stop capturing in a window after N frames (default 100000)\n"
		"  --duration S           stop after S s (default 0: until SIGINT/SIGTERM)\n"
		"Output (TSV), per direction per window:\n"
		"  w tick ts_ns mono_ns dir departures matched busy egress delay_n delay_min_ns delay_p1_ns\n"
		"    delay_p50_ns delay_p99_ns delay_max_ns capture_drops bins\n"
		"  bins: busy-gap histogram of ns per byte, BIN:COUNT,... with bin b covering\n"
		"    [%.2f * %.2f^b, %.2f * %.2f^(b+1)) ns/byte, or '-' when empty\n"
		"  #end reason=... windows=N records=N captured=N arrivals=N unkeyed=N drops=N\n",
		PROG, BIN_MIN, BIN_STEP, BIN_MIN, BIN_STEP);
}

int main(int argc, char **argv)
{
	long window_ms = 1000, every_ms = 1000, max_per_window = 100000;
	double duration_s = 0;
	static const struct option opts[] = {
		{ "dir", required_argument, 0, 'd' },	     { "window-ms", required_argument, 0, 'w' },
		{ "every-ms", required_argument, 0, 'e' },   { "max-per-window", required_argument, 0, 'm' },
		{ "duration", required_argument, 0, 't' },   { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	lfn_prog = PROG;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'd': {
			if (ndirs >= MAX_DIRS) die("too many --dir (at most 32)");
			struct dir *d = &dirs[ndirs];
			char *a = strdup(optarg), *b = strchr(a, ','), *e = b ? strchr(b + 1, ',') : NULL;
			if (!b || !e || e[1] == '\0' || b == a) die("--dir needs NAME,IFB,EGRESS");
			*b = *e = '\0';
			if (strlen(a) >= sizeof(d->name) || strlen(b + 1) >= IF_NAMESIZE || strlen(e + 1) >= IF_NAMESIZE)
				die("--dir: a name is too long (devices: at most 15 characters)");
			strcpy(d->name, a);
			strcpy(d->ifb, b + 1);
			strcpy(d->egress, e + 1);
			free(a);
			ndirs++;
			break;
		}
		case 'w': window_ms = strtol(optarg, &end, 10); if (*end || window_ms < 10 || window_ms > 60000) die("--window-ms must be 10 to 60000"); break;
		case 'e': every_ms = strtol(optarg, &end, 10); if (*end || every_ms < 10 || every_ms > 60000) die("--every-ms must be 10 to 60000"); break;
		case 'm': max_per_window = strtol(optarg, &end, 10); if (*end || max_per_window < 1) die("--max-per-window must be a positive integer"); break;
		case 't': duration_s = strtod(optarg, &end); if (*end || duration_s < 0 || duration_s > 86400) die("--duration must be 0 to 86400 s"); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (ndirs == 0) die("at least one --dir NAME,IFB,EGRESS is needed");
	if (window_ms > every_ms) die("--window-ms must not exceed --every-ms");
	for (int i = 0; i < ndirs; i++) {
		dirs[i].ifb_idx = (int)if_nametoindex(dirs[i].ifb);
		dirs[i].egress_idx = (int)if_nametoindex(dirs[i].egress);
		if (!dirs[i].ifb_idx || !dirs[i].egress_idx) {
			lfn_err("--dir %s: no device %s in this namespace", dirs[i].name,
				dirs[i].ifb_idx ? dirs[i].egress : dirs[i].ifb);
			return 2;
		}
		dirs[i].delays = calloc(MAX_DELAYS, sizeof(int64_t));
		if (!dirs[i].delays) die("out of memory");
	}

	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0) die("cannot open a packet socket (needs CAP_NET_RAW)");
	int one = 1, rcvbuf = 4 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) die("cannot enable SO_TIMESTAMPNS");
	/* The filter trims each frame to SNAPLEN; the auxiliary data keeps its length on the wire. */
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) die("cannot enable PACKET_AUXDATA");
	/* No SA_RESTART: poll() returns at once on a stop signal. SIGPIPE keeps its default. */
	lfn_catch_stop_signals(0);

	printf("#%s\tv%d\tdirs=%d\twindow_ms=%ld\tevery_ms=%ld\tbin_min=%.2f\tbin_step=%.2f\n", PROG, FORMAT_VERSION, ndirs,
	       window_ms, every_ms, BIN_MIN, BIN_STEP);
	printf("#w\ttick\tts_ns\tmono_ns\tdir\tdepartures\tmatched\tbusy\tegress\tdelay_n\tdelay_min_ns\tdelay_p1_ns\t"
	       "delay_p50_ns\tdelay_p99_ns\tdelay_max_ns\tcapture_drops\tbins\n");
	fflush(stdout);

	const uint64_t period = (uint64_t)every_ms * 1000000ull, width = (uint64_t)window_ms * 1000000ull;
	uint64_t start = now_ns(CLOCK_MONOTONIC);
	uint64_t stop_at = duration_s > 0 ? start + (uint64_t)(duration_s * 1e9) : UINT64_MAX;
	uint64_t tick = 0, total_drops = 0;
	const char *reason = "signal";
	unsigned char buf[SNAPLEN];
	char cbuf[256];
	int capturing = 1;
	long in_window = 0;
	set_filter(fd, 1);
	for (;;) {
		uint64_t mono = now_ns(CLOCK_MONOTONIC);
		uint64_t win_start = start + tick * period, win_end = win_start + width, next = win_start + period;
		if (lfn_stop_signal) break;
		if (mono >= stop_at) {
			reason = "duration";
			break;
		}
		if (capturing && (mono >= win_end || in_window >= max_per_window)) {
			if (width < period || in_window >= max_per_window) set_filter(fd, 0);
			capturing = 0;
		}
		if (mono >= (width < period ? next : win_end)) {
			/* The window is over: everything it captured is read (the filter is off), so report. */
			struct tpacket_stats st;
			socklen_t sl = sizeof(st);
			unsigned drops = getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0 ? st.tp_drops : 0;
			total_drops += drops;
			emit(tick, now_ns(CLOCK_REALTIME), mono, drops);
			tick++;
			in_window = 0;
			if (!capturing) set_filter(fd, 1);
			capturing = 1;
			continue;
		}
		uint64_t until = capturing ? win_end : next;
		if (until > stop_at) until = stop_at;
		int timeout = (int)((until - mono + 999999) / 1000000);
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, timeout < 1 ? 1 : timeout);
		if (r < 0 && errno != EINTR) die("poll failed");
		if (r <= 0) continue;
		for (;;) {
			struct sockaddr_ll ll;
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr m = { .msg_name = &ll, .msg_namelen = sizeof(ll), .msg_iov = &iov, .msg_iovlen = 1,
					    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
			ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_TRUNC);
			if (n < 0) break;
			uint64_t ts = 0;
			size_t wire = 0;
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
				if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
					struct timespec t;
					memcpy(&t, CMSG_DATA(cm), sizeof(t));
					ts = (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
				} else if (cm->cmsg_level == SOL_PACKET && cm->cmsg_type == PACKET_AUXDATA) {
					struct tpacket_auxdata aux;
					memcpy(&aux, CMSG_DATA(cm), sizeof(aux));
					wire = aux.tp_len;
				}
			}
			if (!ts || !wire) continue;
			size_t caplen = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf);
			handle(buf, caplen, wire, &ll, ts);
			in_window++;
		}
	}
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0) total_drops += st.tp_drops;
	emit(tick, now_ns(CLOCK_REALTIME), now_ns(CLOCK_MONOTONIC), 0);
	printf("#end\treason=%s\twindows=%llu\trecords=%llu\tcaptured=%llu\tarrivals=%llu\tunkeyed=%llu\tdrops=%llu\n", reason,
	       (unsigned long long)windows, (unsigned long long)records, (unsigned long long)captured,
	       (unsigned long long)arrivals, (unsigned long long)unkeyed, (unsigned long long)total_drops);
	fflush(stdout);
	return 0;
}
