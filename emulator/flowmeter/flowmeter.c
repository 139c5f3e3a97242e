// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-flowmeter: per-flow TCP counters and RTT of flows the lab does not own, read off the wire.
 *
 * When the lab is a bump in the wire, its router namespace bridges two ports (A and B) and the TCP
 * endpoints are external hosts: there is no socket to ask for tcp_info. What the emulator can see
 * is every frame as it enters (a port's receive tap) and as it leaves (the other port's transmit
 * tap, after the emulator's queues and delay). One AF_PACKET socket sees both taps of both ports
 * in the order they happened; a classic BPF filter in the kernel keeps only IPv4/TCP frames of the
 * two ports and cuts each to its headers, so the capture costs little per frame and never copies
 * payload.
 *
 * A half-flow is one direction of one connection (src:sport>dst:dport). It enters on the port its
 * source sits behind and leaves on the other. Per tick and half-flow:
 *  - entered/left payload bytes and packets: what the path was offered and what it delivered;
 *  - new bytes left: sequence space leaving for the first time, the goodput the receiver was
 *    handed. That is payload beyond the highest end seen leaving, and payload that fills a hole
 *    below it: a segment the emulator dropped leaves later, when the sender retransmits it. A
 *    retransmission of data that had left already is not counted twice;
 *  - retransmitted segments entering: data at or below the highest end already seen entering;
 *  - flight: highest sequence end entered minus the highest ACK entered from the opposite
 *    half-flow, i.e. what the sender's stack believes is outstanding (its cwnd at work), at the
 *    tick's end;
 *  - RTT from TCP timestamps: a segment entering with a TSval not seen before has its entry time
 *    kept; when the first segment of the opposite half-flow that echoes it (TSecr) leaves toward
 *    the sender, RTT = now - entry. That covers the emulator's forward queue and delay, the
 *    receiver and the whole reverse path; only the sender's own NIC and stack are outside it.
 *    Kept TSvals form a small queue per half-flow (echoes arrive in TSval order, so matching only
 *    ever looks at its oldest entries). When the queue is full new TSvals are skipped, which
 *    thins the samples to a queue's worth per RTT but never makes one wrong. No timestamps, no
 *    samples (rtt_n 0).
 * Sequence numbers are compared in serial-number arithmetic, so a 32-bit wrap is one step on.
 *
 * Time: frames are stamped with CLOCK_MONOTONIC when read. Kernel stamps are not used: a forwarded
 * skb can keep its arrival time or even the sending host's departure time, so it would not say when
 * the frame passed the tap. Monotonic rather than real time because only differences are kept,
 * and a wall clock stepped while it runs (set from outside) must not turn into an RTT. Records
 * carry both clocks, taken at the tick, like the other samplers. Payload length comes from the IP
 * header's total length: the filter has cut the frame, and Ethernet padding would otherwise count
 * as data.
 *
 * Output (stdout, TSV, written only at ticks with fixed buffers, never per frame): a '# lfn-flowmeter
 * vN ...' line, a '#tick...' line naming the columns, then per tick one line per half-flow that had
 * frames in it (counts are for the interval that ends at the tick), and an '#end' record of
 * key=value counters. Run --help for the columns. Ticks follow liblfn's drift-free schedule.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>

#include "lfn_common.h"

#define PROG "lfn-flowmeter"
#define FORMAT_VERSION 1

/* Ethernet + the longest IPv4 header + the longest TCP header: every header, no payload. */
#define SNAPLEN (14 + 60 + 60)
/* Half-flows kept at once; the index has 4x the slots, so probes stay short. */
#define MAX_FLOWS 1024
#define INDEX_SLOTS 4096
/* Once this many are kept, half-flows idle for IDLE_NS are dropped at the next tick. */
#define COMPACT_AT (MAX_FLOWS * 3 / 4)
#define IDLE_NS (30 * NSEC_PER_SEC)
/* Gaps in the sequence space that has left, per half-flow (each a burst of drops or a reordering). */
#define MAX_HOLES 256
/* TSvals waiting for their echo, per half-flow. */
#define TS_QUEUE 64
/* Frames read before the loop looks at the clock again, so a flood cannot hold a tick back. */
#define DRAIN_BATCH 2048
/* The longest sleep between reads: the socket buffer holds far more than this much traffic. */
#define WAKE_NS (20 * NSEC_PER_SEC / 1000)
#define MAX_LOGGED_ERRORS 5
#define LINE_MAX_LEN 512

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_ACK 0x10

enum { PORT_A, PORT_B };

/* Sequence space [start, end) not yet seen leaving, below the highest end that has. */
struct hole {
	uint32_t start, end;
};

struct ts_mark {
	uint32_t tsval;
	uint64_t entered_ns;
};

struct half_flow {
	/* Key, in network byte order as on the wire. */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t src_port; /* PORT_A or PORT_B: the port its source sits behind, where it enters */
	uint8_t in_known, out_known, ack_known, ts_known;
	uint32_t in_end;  /* highest sequence end seen entering */
	uint32_t out_end; /* highest sequence end seen leaving */
	uint32_t ack_max; /* highest ACK number seen entering (acknowledges the opposite half-flow) */
	uint32_t last_tsval;
	uint64_t last_seen_ns;
	uint32_t n_holes;
	struct hole holes[MAX_HOLES];
	/* This tick's counters. */
	uint64_t in_bytes, in_pkts, out_bytes, out_pkts, new_bytes, retrans;
	uint64_t rtt_n, rtt_sum_ns, rtt_min_ns, rtt_max_ns;
	/* TSvals entered and not yet echoed, oldest at ts_head. */
	uint16_t ts_head, ts_len;
	struct ts_mark ts[TS_QUEUE];
};

struct options {
	const char *dev[2];
	int ifindex[2];
	unsigned hz;
	double duration_s;
	uint64_t duration_ns;
};

struct counters {
	uint64_t ticks, late, skipped, records, errors, max_work_ns;
	uint64_t frames, ignored, drops, flows, overflows, ts_full, holes_full, restamped;
};

static struct half_flow flows[MAX_FLOWS];
static unsigned n_flows;
/* Flow index + 1 per slot; 0 = empty. */
static uint16_t flow_index[INDEX_SLOTS];

static struct options opt;
static struct counters cnt;
static char line[LINE_MAX_LEN];
static char stdout_buf[1 << 16];

#define log_error(...) lfn_err_capped(cnt.errors, MAX_LOGGED_ERRORS, " (further errors are only counted)", __VA_ARGS__)

/* ---- sequence space ---- */

/* a is after b in serial-number arithmetic (RFC 1982): survives the 32-bit wrap. */
static inline int seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- half-flow table ---- */

static uint32_t flow_hash(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	uint64_t h = ((uint64_t)saddr << 32 | daddr) ^ ((uint64_t)sport << 16 | dport) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static inline int flow_is(const struct half_flow *f, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	return f->saddr == saddr && f->daddr == daddr && f->sport == sport && f->dport == dport;
}

/* The half-flow, or NULL; with create, a new one when there is room (else counted as an overflow). */
static struct half_flow *flow_find(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport, int create,
				   uint8_t src_port)
{
	uint32_t i = flow_hash(saddr, daddr, sport, dport) & (INDEX_SLOTS - 1);
	struct half_flow *f;

	for (; flow_index[i]; i = (i + 1) & (INDEX_SLOTS - 1)) {
		f = &flows[flow_index[i] - 1];
		if (flow_is(f, saddr, daddr, sport, dport))
			return f;
	}
	if (!create)
		return NULL;
	if (n_flows >= MAX_FLOWS) {
		cnt.overflows++;
		return NULL;
	}
	f = &flows[n_flows++];
	memset(f, 0, offsetof(struct half_flow, ts));
	f->saddr = saddr;
	f->daddr = daddr;
	f->sport = sport;
	f->dport = dport;
	f->src_port = src_port;
	flow_index[i] = (uint16_t)n_flows;
	cnt.flows++;
	return f;
}

static struct half_flow *flow_reverse(const struct half_flow *f)
{
	return flow_find(f->daddr, f->saddr, f->dport, f->sport, 0, 0);
}

/* Drops half-flows idle since before `cutoff` and rebuilds the index; runs between ticks only. */
static void flow_compact(uint64_t cutoff)
{
	unsigned kept = 0, i;

	for (i = 0; i < n_flows; i++) {
		if (flows[i].last_seen_ns < cutoff)
			continue;
		if (kept != i)
			memcpy(&flows[kept], &flows[i], sizeof(flows[0]));
		kept++;
	}
	n_flows = kept;
	memset(flow_index, 0, sizeof(flow_index));
	for (i = 0; i < n_flows; i++) {
		const struct half_flow *f = &flows[i];
		uint32_t s = flow_hash(f->saddr, f->daddr, f->sport, f->dport) & (INDEX_SLOTS - 1);

		while (flow_index[s])
			s = (s + 1) & (INDEX_SLOTS - 1);
		flow_index[s] = (uint16_t)(i + 1);
	}
}

/* ---- frames ---- */

struct segment {
	uint32_t seq, ack, tsval, tsecr;
	uint32_t payload;
	uint8_t flags, has_ts;
};

/* The TCP timestamp option, if the header (as far as captured) has one. */
static void parse_ts_option(const uint8_t *o, size_t len, struct segment *s)
{
	size_t i = 0;

	while (i < len) {
		uint8_t kind = o[i];

		if (kind == 0)
			return;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= len || o[i + 1] < 2 || i + o[i + 1] > len)
			return;
		if (kind == 8 && o[i + 1] == 10) {
			s->tsval = get_be32(o + i + 2);
			s->tsecr = get_be32(o + i + 6);
			s->has_ts = 1;
			return;
		}
		i += o[i + 1];
	}
}

static void sample_rtt(struct half_flow *f, uint64_t rtt_ns)
{
	if (!f->rtt_n || rtt_ns < f->rtt_min_ns)
		f->rtt_min_ns = rtt_ns;
	if (rtt_ns > f->rtt_max_ns)
		f->rtt_max_ns = rtt_ns;
	f->rtt_sum_ns += rtt_ns;
	f->rtt_n++;
}

static void entered(struct half_flow *f, const struct segment *s, uint64_t now)
{
	uint32_t span = s->payload + !!(s->flags & TCP_SYN) + !!(s->flags & TCP_FIN);
	uint32_t end = s->seq + span;

	f->in_bytes += s->payload;
	f->in_pkts++;
	if (!f->in_known) {
		f->in_end = end;
		f->in_known = 1;
	} else if (seq_after(end, f->in_end)) {
		f->in_end = end;
	} else if (s->payload) {
		f->retrans++;
	}
	if ((s->flags & TCP_ACK) && (!f->ack_known || seq_after(s->ack, f->ack_max))) {
		f->ack_max = s->ack;
		f->ack_known = 1;
	}
	/* Only segments that occupy sequence space get an echo that is worth timing. */
	if (s->has_ts && span && (!f->ts_known || seq_after(s->tsval, f->last_tsval))) {
		f->last_tsval = s->tsval;
		f->ts_known = 1;
		if (f->ts_len < TS_QUEUE) {
			struct ts_mark *m = &f->ts[(f->ts_head + f->ts_len) % TS_QUEUE];

			m->tsval = s->tsval;
			m->entered_ns = now;
			f->ts_len++;
		} else {
			cnt.ts_full++;
		}
	}
}

/* An echo of `tsecr` left toward the sender of `f`: time the TSval it echoes, once. */
static void echoed(struct half_flow *f, uint32_t tsecr, uint64_t now)
{
	while (f->ts_len) {
		const struct ts_mark *m = &f->ts[f->ts_head];

		/* Echoes come in TSval order: a newer mark waits for a later echo. */
		if (seq_after(m->tsval, tsecr))
			return;
		f->ts_head = (uint16_t)((f->ts_head + 1) % TS_QUEUE);
		f->ts_len--;
		/* An older mark was never echoed (the receiver acknowledged it together with later data). */
		if (m->tsval == tsecr) {
			sample_rtt(f, now - m->entered_ns);
			return;
		}
	}
}

/* Bytes of [start, end) that fill holes left behind out_end; the holes shrink by them. */
static uint32_t fill_holes(struct half_flow *f, uint32_t start, uint32_t end)
{
	uint32_t filled = 0;
	unsigned i = 0;

	while (i < f->n_holes) {
		struct hole *h = &f->holes[i];
		uint32_t lo = seq_after(start, h->start) ? start : h->start;
		uint32_t hi = seq_after(h->end, end) ? end : h->end;

		if (!seq_after(hi, lo)) {
			i++;
			continue;
		}
		filled += hi - lo;
		if (lo == h->start && hi == h->end) {
			/* Filled: the last hole takes its place (their order does not matter). */
			*h = f->holes[--f->n_holes];
			continue;
		}
		if (lo == h->start) {
			h->start = hi;
		} else if (hi == h->end) {
			h->end = lo;
		} else if (f->n_holes < MAX_HOLES) {
			f->holes[f->n_holes].start = hi;
			f->holes[f->n_holes].end = h->end;
			f->n_holes++;
			h->end = lo;
		} else {
			/* No room to split: the hole's right part is forgotten, and will not count as new. */
			h->end = lo;
			cnt.holes_full++;
		}
		i++;
	}
	return filled;
}

static void add_hole(struct half_flow *f, uint32_t start, uint32_t end)
{
	unsigned i, oldest = 0;

	if (f->n_holes < MAX_HOLES) {
		f->holes[f->n_holes].start = start;
		f->holes[f->n_holes].end = end;
		f->n_holes++;
		return;
	}
	/* Full: the hole furthest back in sequence space is the least likely to be filled now. */
	for (i = 1; i < MAX_HOLES; i++)
		if (seq_after(f->holes[oldest].start, f->holes[i].start))
			oldest = i;
	f->holes[oldest].start = start;
	f->holes[oldest].end = end;
	cnt.holes_full++;
}

/*
 * New bytes are the sequence space leaving for the first time: beyond the highest end seen leaving,
 * or inside a hole that a jump past lost or reordered data left behind. Counting only the first
 * would miss every segment the emulator dropped and the sender then sent again.
 */
static void left(struct half_flow *f, const struct segment *s, uint64_t now)
{
	uint32_t syn = !!(s->flags & TCP_SYN);
	uint32_t end = s->seq + s->payload + syn + !!(s->flags & TCP_FIN);

	f->out_bytes += s->payload;
	f->out_pkts++;
	if (s->payload) {
		uint32_t data_start = s->seq + syn, data_end = data_start + s->payload;

		if (!f->out_known) {
			f->new_bytes += s->payload;
		} else if (seq_after(data_end, f->out_end)) {
			if (seq_after(data_start, f->out_end)) {
				add_hole(f, f->out_end, data_start);
				f->new_bytes += s->payload;
			} else {
				f->new_bytes += data_end - f->out_end + fill_holes(f, data_start, f->out_end);
			}
		} else {
			f->new_bytes += fill_holes(f, data_start, data_end);
		}
	}
	if (!f->out_known || seq_after(end, f->out_end)) {
		f->out_end = end;
		f->out_known = 1;
	}
	if (s->has_ts && (s->flags & TCP_ACK)) {
		struct half_flow *sender = flow_reverse(f);

		if (sender)
			echoed(sender, s->tsecr, now);
	}
}

/* One captured frame from port `port`; `outgoing` when the port was sending it. */
static void handle_frame(const uint8_t *p, size_t cap, int port, int outgoing, uint64_t now)
{
	const uint8_t *ip = p + 14, *tcp;
	size_t ihl, doff, tot_len, opt_len;
	struct segment s;
	struct half_flow *f;
	uint8_t src_port;

	cnt.frames++;
	if (cap < 14 + 20 || get_be16(p + 12) != ETH_P_IP || ip[0] >> 4 != 4 || ip[9] != IPPROTO_TCP)
		goto ignore;
	ihl = (size_t)(ip[0] & 15) * 4;
	tot_len = get_be16(ip + 2);
	/* Fragments: only the first has the TCP header, and its length would not be the segment's. */
	if (ihl < 20 || (get_be16(ip + 6) & 0x3fff) || cap < 14 + ihl + 20 || tot_len < ihl + 20)
		goto ignore;
	tcp = ip + ihl;
	doff = (size_t)(tcp[12] >> 4) * 4;
	if (doff < 20 || tot_len < ihl + doff)
		goto ignore;

	memset(&s, 0, sizeof(s));
	s.seq = get_be32(tcp + 4);
	s.ack = get_be32(tcp + 8);
	s.flags = tcp[13];
	s.payload = (uint32_t)(tot_len - ihl - doff);
	opt_len = doff - 20;
	if (14 + ihl + doff > cap)
		opt_len = cap - 14 - ihl - 20;
	parse_ts_option(tcp + 20, opt_len, &s);

	src_port = (uint8_t)(outgoing ? !port : port);
	{
		uint32_t saddr, daddr;
		uint16_t sport, dport;

		memcpy(&saddr, ip + 12, 4);
		memcpy(&daddr, ip + 16, 4);
		memcpy(&sport, tcp, 2);
		memcpy(&dport, tcp + 2, 2);
		f = flow_find(saddr, daddr, sport, dport, 1, src_port);
	}
	if (!f)
		return;
	/* Its source moved to the other side of the bump: not a path this program can describe. */
	if (f->src_port != src_port)
		goto ignore;
	f->last_seen_ns = now;
	if (outgoing)
		left(f, &s, now);
	else
		entered(f, &s, now);
	return;
ignore:
	cnt.ignored++;
}

/* ---- capture socket ---- */

static int open_capture(void)
{
	/* IPv4 (not a later fragment) carrying TCP, on port A or B; cut to SNAPLEN. Else nothing. */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_IFINDEX)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)opt.ifindex[PORT_A], 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)opt.ifindex[PORT_B], 0, 6),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 4),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 2),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 6),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, SNAPLEN),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(code) / sizeof(code[0])), code };
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int rcvbuf = 8 << 20, one = 1, fd;

	/*
	 * Protocol 0 receives nothing until bind(), so no frame slips in before the filter is on
	 * (the first ticks would otherwise count frames of other devices).
	 */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		lfn_die(1, "cannot open a packet socket (needs CAP_NET_RAW): %s", strerror(errno));
	/* Room for a few hundred ms of frames at 10k/s while a tick writes its records. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0)
		lfn_die(1, "cannot ask for packet timestamps: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		lfn_die(1, "cannot attach the packet filter: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)) < 0)
		lfn_die(1, "cannot bind the packet socket: %s", strerror(errno));
	return fd;
}

/* Frames per recvmmsg() call. */
#define READ_BATCH 64

/*
 * When a frame passed its tap: the kernel's stamp (SO_TIMESTAMPNS, taken as the frame arrived on a
 * port and, for a frame leaving, at the transmit tap itself), so frames read in a batch keep their
 * own times. A stamp far from the time of reading is not the tap's: a frame that came through a
 * veth keeps its sender's departure time (CLOCK_MONOTONIC), and then the time of reading stands in.
 */
static uint64_t frame_time(struct msghdr *m, uint64_t read_ns)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			uint64_t t;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			t = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
			if (t <= read_ns && read_ns - t < NSEC_PER_SEC)
				return t;
			cnt.restamped++;
			return read_ns;
		}
	}
	cnt.restamped++;
	return read_ns;
}

/*
 * Reads up to DRAIN_BATCH waiting frames, READ_BATCH per system call (a call costs tens of
 * microseconds under software emulation, where the lab spends its CPU); returns how many (fewer =
 * the socket is empty).
 */
static unsigned drain(int fd)
{
	static uint8_t bufs[READ_BATCH][SNAPLEN];
	static char ctl[READ_BATCH][CMSG_SPACE(sizeof(struct timespec))];
	static struct sockaddr_ll lls[READ_BATCH];
	static struct iovec iovs[READ_BATCH];
	static struct mmsghdr msgs[READ_BATCH];
	unsigned n = 0;

	while (n < DRAIN_BATCH) {
		int i, got;
		uint64_t read_ns;

		for (i = 0; i < READ_BATCH; i++) {
			iovs[i] = (struct iovec){ bufs[i], SNAPLEN };
			msgs[i].msg_hdr = (struct msghdr){ .msg_name = &lls[i], .msg_namelen = sizeof(lls[i]),
							   .msg_iov = &iovs[i], .msg_iovlen = 1,
							   .msg_control = ctl[i], .msg_controllen = sizeof(ctl[i]) };
		}
		got = recvmmsg(fd, msgs, READ_BATCH, MSG_DONTWAIT, NULL);
		read_ns = now_ns(CLOCK_REALTIME);
		if (got < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				log_error("reading the packet socket failed: %s", strerror(errno));
				cnt.errors++;
			}
			break;
		}
		for (i = 0; i < got; i++) {
			size_t len = msgs[i].msg_len < SNAPLEN ? msgs[i].msg_len : SNAPLEN;

			handle_frame(bufs[i], len, lls[i].sll_ifindex == opt.ifindex[PORT_A] ? PORT_A : PORT_B,
				     lls[i].sll_pkttype == PACKET_OUTGOING, frame_time(&msgs[i].msg_hdr, read_ns));
		}
		n += (unsigned)got;
		if (got < READ_BATCH)
			break;
	}
	return n;
}

static void add_socket_drops(int fd)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* The kernel resets these counters on every read. */
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
		cnt.drops += st.tp_drops;
}

/* ---- output ---- */

static char *fmt_ipv4_port(char *p, uint32_t addr, uint16_t port)
{
	const uint8_t *a = (const uint8_t *)&addr;

	p = fmt_u64(p, a[0]);
	*p++ = '.';
	p = fmt_u64(p, a[1]);
	*p++ = '.';
	p = fmt_u64(p, a[2]);
	*p++ = '.';
	p = fmt_u64(p, a[3]);
	*p++ = ':';
	return fmt_u64(p, ntohs(port));
}

static uint32_t flight_of(const struct half_flow *f)
{
	const struct half_flow *r = flow_reverse(f);

	if (!f->in_known || !r || !r->ack_known || !seq_after(f->in_end, r->ack_max))
		return 0;
	return f->in_end - r->ack_max;
}

/* One record per half-flow with frames in this tick; its counters restart. Returns -1 if stdout failed. */
static int emit(uint64_t tick, uint64_t real_ns, uint64_t mono_ns)
{
	unsigned i;

	for (i = 0; i < n_flows; i++) {
		struct half_flow *f = &flows[i];
		char *p = line;

		if (!f->in_pkts && !f->out_pkts)
			continue;
		p = fmt_u64(p, tick);
		*p++ = '\t';
		p = fmt_u64(p, real_ns);
		*p++ = '\t';
		p = fmt_u64(p, mono_ns);
		*p++ = '\t';
		*p++ = f->src_port == PORT_A ? 'a' : 'b';
		*p++ = '\t';
		p = fmt_ipv4_port(p, f->saddr, f->sport);
		*p++ = '>';
		p = fmt_ipv4_port(p, f->daddr, f->dport);
		*p++ = '\t';
		p = fmt_u64(p, f->in_bytes);
		*p++ = '\t';
		p = fmt_u64(p, f->in_pkts);
		*p++ = '\t';
		p = fmt_u64(p, f->out_bytes);
		*p++ = '\t';
		p = fmt_u64(p, f->out_pkts);
		*p++ = '\t';
		p = fmt_u64(p, f->new_bytes);
		*p++ = '\t';
		p = fmt_u64(p, f->retrans);
		*p++ = '\t';
		p = fmt_u64(p, flight_of(f));
		*p++ = '\t';
		p = fmt_u64(p, f->rtt_n);
		*p++ = '\t';
		p = fmt_u64(p, f->rtt_n ? f->rtt_min_ns / 1000 : 0);
		*p++ = '\t';
		p = fmt_u64(p, f->rtt_n ? f->rtt_sum_ns / f->rtt_n / 1000 : 0);
		*p++ = '\t';
		p = fmt_u64(p, f->rtt_n ? f->rtt_max_ns / 1000 : 0);
		*p++ = '\n';
		if (fwrite(line, 1, (size_t)(p - line), stdout) != (size_t)(p - line))
			return -1;
		cnt.records++;
		f->in_bytes = f->in_pkts = f->out_bytes = f->out_pkts = f->new_bytes = f->retrans = 0;
		f->rtt_n = f->rtt_sum_ns = f->rtt_min_ns = f->rtt_max_ns = 0;
	}
	return fflush(stdout) ? -1 : 0;
}

static void print_header(void)
{
	printf("# " PROG " v%d hz=%u duration_s=%g a=%s b=%s\n", FORMAT_VERSION, opt.hz, opt.duration_s, opt.dev[PORT_A],
	       opt.dev[PORT_B]);
	printf("#tick\tts_ns\tmono_ns\tside\tflow\tin_bytes\tin_pkts\tout_bytes\tout_pkts\tnew_bytes\tretrans_in"
	       "\tflight_bytes\trtt_n\trtt_min_us\trtt_mean_us\trtt_max_us\n");
}

static void print_end(FILE *f, const char *reason, uint64_t elapsed_ns)
{
	fprintf(f,
		"#end\treason=%s\tticks=%llu\tlate=%llu\tskipped=%llu\trecords=%llu\terrors=%llu\tmax_work_ns=%llu"
		"\telapsed_ns=%llu\tcpu_ns=%llu\tframes=%llu\tignored=%llu\tdrops=%llu\tflows=%llu\toverflows=%llu"
		"\tts_full=%llu\tholes_full=%llu\trestamped=%llu\n",
		reason, (unsigned long long)cnt.ticks, (unsigned long long)cnt.late, (unsigned long long)cnt.skipped,
		(unsigned long long)cnt.records, (unsigned long long)cnt.errors, (unsigned long long)cnt.max_work_ns,
		(unsigned long long)elapsed_ns, (unsigned long long)now_ns(CLOCK_PROCESS_CPUTIME_ID),
		(unsigned long long)cnt.frames, (unsigned long long)cnt.ignored, (unsigned long long)cnt.drops,
		(unsigned long long)cnt.flows, (unsigned long long)cnt.overflows, (unsigned long long)cnt.ts_full,
		(unsigned long long)cnt.holes_full, (unsigned long long)cnt.restamped);
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --a DEV --b DEV [--hz N] [--duration SECONDS]\n"
		"Per-flow TCP counters and RTT of the IPv4 flows crossing a two-port bump in the wire,\n"
		"read from the frames entering and leaving ports A and B (run in their namespace; needs\n"
		"CAP_NET_RAW). A half-flow (one direction of a connection) enters on the port its source\n"
		"is behind and leaves on the other.\n"
		"\n"
		"Options:\n"
		"  --a DEV             port A (the device towards host A)\n"
		"  --b DEV             port B (the device towards host B)\n"
		"  --hz N              records per second, 1..100 (default 10)\n"
		"  --duration SECONDS  run time, fractions allowed; 0 = until SIGTERM/SIGINT (default 0)\n"
		"  --help              this text\n"
		"  --version           print the output format version\n"
		"\n"
		"TSV output (v%d): a '# " PROG "' line, a '#tick...' line naming the columns, then per tick\n"
		"one line per half-flow that had frames since the previous tick:\n"
		"  tick          slot number since start (the interval ending at this slot; gaps = skipped)\n"
		"  ts_ns         CLOCK_REALTIME at the tick, ns since the epoch\n"
		"  mono_ns       CLOCK_MONOTONIC at the tick, ns\n"
		"  side          a or b: the port the half-flow enters on\n"
		"  flow          SRC:SPORT>DST:DPORT\n"
		"  in_bytes      payload bytes that entered\n"
		"  in_pkts       segments that entered\n"
		"  out_bytes     payload bytes that left\n"
		"  out_pkts      segments that left\n"
		"  new_bytes     payload bytes that left for the first time (sequence space not seen leaving)\n"
		"  retrans_in    data segments that entered at or below the highest sequence seen entering\n"
		"  flight_bytes  highest sequence entered minus the highest ACK entered by the opposite\n"
		"                half-flow, at the tick (0 = not known yet)\n"
		"  rtt_n         RTT samples (TCP timestamps: entry of a TSval to exit of its echo)\n"
		"  rtt_min_us rtt_mean_us rtt_max_us   of those samples, us (0 when rtt_n is 0)\n"
		"The last line is the summary (tab-separated key=value):\n"
		"  #end reason=duration|signal|error ticks late skipped records errors max_work_ns\n"
		"       elapsed_ns cpu_ns frames ignored drops flows overflows ts_full holes_full restamped\n"
		"frames = frames read, ignored = of those not usable (malformed, fragment, a source on the\n"
		"wrong side), drops = frames the socket lost (PACKET_STATISTICS), flows = half-flows seen,\n"
		"overflows = frames of new half-flows with the table full (%d), ts_full = TSvals not kept\n"
		"because their half-flow already had %d waiting for an echo, holes_full = gaps in the sequence\n"
		"space that has left forgotten for want of room (%d per half-flow; new_bytes is short then),\n"
		"restamped = frames timed when read, their kernel stamp not being the tap's (a veth's).\n"
		"\n"
		"Exit status: 0 after duration or SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage.\n",
		FORMAT_VERSION, MAX_FLOWS, TS_QUEUE, MAX_HOLES);
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_A = 256, OPT_B, OPT_HZ, OPT_DURATION, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "a", required_argument, NULL, OPT_A },
		{ "b", required_argument, NULL, OPT_B },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	o->hz = 10;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_A:
		case OPT_B:
			if (!*optarg || strlen(optarg) >= IF_NAMESIZE)
				return lfn_bad_value(c == OPT_A ? "--a must be a device name of 1..15 characters"
								: "--b must be a device name of 1..15 characters",
						     optarg);
			o->dev[c == OPT_A ? PORT_A : PORT_B] = optarg;
			break;
		case OPT_HZ:
			if (lfn_opt_hz(optarg, &o->hz))
				return -1;
			break;
		case OPT_DURATION:
			if (lfn_opt_duration(optarg, &o->duration_s, &o->duration_ns))
				return -1;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	if (!o->dev[PORT_A] || !o->dev[PORT_B]) {
		lfn_err("both ports are needed: --a DEV --b DEV");
		return -1;
	}
	if (!strcmp(o->dev[PORT_A], o->dev[PORT_B])) {
		lfn_err("--a and --b must be two devices (both are '%s')", o->dev[PORT_A]);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		o->ifindex[i] = (int)if_nametoindex(o->dev[i]);
		if (!o->ifindex[i]) {
			lfn_err("--%c: no device '%s' in this network namespace", i == PORT_A ? 'a' : 'b', o->dev[i]);
			return -1;
		}
	}
	return 0;
}

/* ---- main loop ---- */

int main(int argc, char **argv)
{
	const char *reason = "signal";
	struct lfn_slots slots;
	sigset_t stop_set, wait_set;
	uint64_t k = 1;
	int fd, status = 0, out_errno = 0;

	lfn_prog = PROG;
	if (parse_args(argc, argv, &opt))
		return 2;
	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));
	fd = open_capture();

	/*
	 * The stop signals are blocked except inside ppoll(), so one arriving between the check and
	 * the wait still ends the wait at once, and output is never interrupted.
	 */
	lfn_catch_stop_signals(LFN_SIG_RESTART | LFN_SIG_IGNORE_PIPE);
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_set, &wait_set);
	sigdelset(&wait_set, SIGINT);
	sigdelset(&wait_set, SIGTERM);

	print_header();
	if (fflush(stdout))
		lfn_die(1, "stdout: %s", strerror(errno));

	/* Slot 0 is the start; the record of tick k covers slot k-1 to slot k. */
	lfn_slots_start(&slots, opt.hz, opt.duration_ns);
	while (k <= slots.n) {
		uint64_t due = slots.t0 + k * NSEC_PER_SEC / slots.hz, mono = now_ns(CLOCK_MONOTONIC), done;
		uint64_t real_ns;

		if (lfn_stop_signal)
			break;
		if (mono < due) {
			/* Frames carry their own times: reading them in batches costs far less than a wakeup each. */
			struct timespec wait = ns_to_timespec(due - mono < WAKE_NS ? due - mono : WAKE_NS);
			int r = ppoll(NULL, 0, &wait, &wait_set);

			if (r < 0 && errno != EINTR) {
				lfn_err("ppoll: %s", strerror(errno));
				reason = "error";
				status = 1;
				break;
			}
			while (drain(fd) == DRAIN_BATCH)
				;
			continue;
		}
		while (drain(fd) == DRAIN_BATCH)
			;
		add_socket_drops(fd);
		real_ns = now_ns(CLOCK_REALTIME);
		mono = now_ns(CLOCK_MONOTONIC);
		if (emit(k, real_ns, mono)) {
			out_errno = errno;
			reason = "error";
			status = 1;
			break;
		}
		cnt.ticks++;
		if (n_flows >= COMPACT_AT)
			flow_compact(real_ns > IDLE_NS ? real_ns - IDLE_NS : 0);
		done = now_ns(CLOCK_MONOTONIC);
		if (done - mono > cnt.max_work_ns)
			cnt.max_work_ns = done - mono;
		k = lfn_slots_next(&slots, k, done, &cnt.late, &cnt.skipped);
	}
	if (k > slots.n) {
		reason = "duration";
	} else if (!status) {
		/* Stopped between ticks: the frames since the last tick still get their records. */
		while (drain(fd) == DRAIN_BATCH)
			;
		add_socket_drops(fd);
		if (emit(k, now_ns(CLOCK_REALTIME), now_ns(CLOCK_MONOTONIC))) {
			out_errno = errno;
			reason = "error";
			status = 1;
		} else {
			cnt.ticks++;
		}
	}
	if (lfn_end_record(print_end, reason, now_ns(CLOCK_MONOTONIC) - slots.t0, out_errno))
		status = 1;
	close(fd);
	return status;
}
