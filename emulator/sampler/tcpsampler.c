// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-tcpsampler: periodic per-flow TCP state sampler built on sock_diag.
 *
 * Polling `ss` (a fork and a text parse per sample) lost data past ~50
 * flows. Here one netlink socket and fixed buffers are reused for the whole
 * run, the kernel does the port and state filtering (inet_diag bytecode),
 * and a tick costs one dump per socket family (AF_INET, AF_INET6).
 *
 * The dominant cost is not per flow: every dump walks the kernel's whole
 * TCP established hash, which is sized from RAM and shared by all network
 * namespaces unless net.ipv4.tcp_child_ehash_entries gave the namespace its
 * own. Hence --family, to skip a walk that cannot find anything.
 *
 * Output goes to stdout through blocking stdio: a slow reader slows the
 * sampler down (counted as late/skipped ticks) instead of losing records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>

#include "lfn_common.h"
#include "lfn_netlink.h"

#define PROG "lfn-tcpsampler"
/* v2: the five vegas_* columns (the stack's own state, INET_DIAG_VEGASINFO) added at the end. */
#define FORMAT_VERSION 2

/* Disjoint ranges after merging; bounded by the u16 jump offsets in the filter. */
#define MAX_PORT_RANGES 256
#define MAX_PORT_ARGS 4096
#define MAX_LOGGED_ERRORS 5

/*
 * Netlink dumps fill datagrams of at most about 32 KiB, so 64 KiB holds any
 * of them; MSG_TRUNC is still checked in case that ever changes.
 */
#define RX_BUF_SIZE (64 * 1024)
#define LINE_BUF_SIZE 4096

/* Kernel TCP state numbers are ABI (include/net/tcp_states.h). */
enum {
	ST_ESTABLISHED = 1,
	ST_SYN_SENT,
	ST_SYN_RECV,
	ST_FIN_WAIT1,
	ST_FIN_WAIT2,
	ST_TIME_WAIT,
	ST_CLOSE,
	ST_CLOSE_WAIT,
	ST_LAST_ACK,
	ST_LISTEN,
	ST_CLOSING,
	ST_NEW_SYN_RECV,
	ST_MAX
};

static const char *const state_names[ST_MAX] = {
	[ST_ESTABLISHED] = "established", [ST_SYN_SENT] = "syn-sent",
	[ST_SYN_RECV] = "syn-recv",	  [ST_FIN_WAIT1] = "fin-wait-1",
	[ST_FIN_WAIT2] = "fin-wait-2",	  [ST_TIME_WAIT] = "time-wait",
	[ST_CLOSE] = "close",		  [ST_CLOSE_WAIT] = "close-wait",
	[ST_LAST_ACK] = "last-ack",	  [ST_LISTEN] = "listen",
	[ST_CLOSING] = "closing",
	/* Request sockets are what users know as syn-recv. */
	[ST_NEW_SYN_RECV] = "syn-recv",
};

#define ALL_STATES (((1u << ST_MAX) - 1) & ~1u)

/*
 * Numeric columns after the fixed prefix (tick .. cc). One table drives the
 * TSV header, both record writers and --help, so they cannot drift apart.
 * A value is 0 when the kernel's tcp_info is too short to contain it
 * (compare info_len) or the socket has no tcp_info at all (time-wait).
 */
#define NUM_COLUMNS(X)                                                                          \
	X(cwnd, ti->tcpi_snd_cwnd, "congestion window, packets")                                 \
	X(ssthresh, ti->tcpi_snd_ssthresh, "slow-start threshold, packets (2147483647 = not set)") \
	X(srtt_us, ti->tcpi_rtt, "smoothed RTT, us")                                             \
	X(rttvar_us, ti->tcpi_rttvar, "RTT variation, us")                                       \
	X(min_rtt_us, ti->tcpi_min_rtt, "windowed min RTT, us (4294967295 = no sample)")         \
	X(mss, ti->tcpi_snd_mss, "send MSS, bytes")                                              \
	X(pacing_rate, ti->tcpi_pacing_rate, "bytes/s (18446744073709551615 = unpaced)")         \
	X(delivery_rate, ti->tcpi_delivery_rate, "latest delivery-rate sample, bytes/s")         \
	X(app_limited, ti->tcpi_delivery_rate_app_limited, "1 if that sample was app-limited")   \
	X(bytes_acked, ti->tcpi_bytes_acked, "bytes")                                            \
	X(bytes_sent, ti->tcpi_bytes_sent, "bytes incl. retransmits (kernel >= 4.19)")           \
	X(bytes_retrans, ti->tcpi_bytes_retrans, "bytes (kernel >= 4.19)")                       \
	X(bytes_received, ti->tcpi_bytes_received, "bytes")                                      \
	X(total_retrans, ti->tcpi_total_retrans, "retransmitted segments, lifetime")             \
	X(retransmits, ti->tcpi_retransmits, "consecutive unrecovered RTOs now")                 \
	X(lost, ti->tcpi_lost, "segments currently marked lost")                                 \
	X(unacked, ti->tcpi_unacked, "segments in flight (packets_out)")                         \
	X(sacked, ti->tcpi_sacked, "segments SACKed")                                            \
	X(delivered, ti->tcpi_delivered, "segments delivered, lifetime")                         \
	X(delivered_ce, ti->tcpi_delivered_ce, "segments delivered with CE mark")                \
	X(data_segs_out, ti->tcpi_data_segs_out, "data segments sent incl. retransmits")         \
	X(notsent_bytes, ti->tcpi_notsent_bytes, "bytes queued but not yet sent")                \
	X(busy_us, ti->tcpi_busy_time, "time with data in flight, us")                           \
	X(rwnd_limited_us, ti->tcpi_rwnd_limited, "time limited by receive window, us")          \
	X(sndbuf_limited_us, ti->tcpi_sndbuf_limited, "time limited by send buffer, us")         \
	X(snd_wnd, ti->tcpi_snd_wnd, "peer's advertised window, bytes (kernel >= 5.4)")          \
	X(rto_us, ti->tcpi_rto, "retransmission timeout, us")                                    \
	X(ca_state, ti->tcpi_ca_state, "0 open 1 disorder 2 cwr 3 recovery 4 loss")              \
	X(info_len, info_len, "bytes of tcp_info the kernel returned (0 = none)")               \
	X(cookie, cookie, "kernel socket cookie, stable id for the flow")                        \
	X(vegas_len, vegas_len, "bytes of tcpvegas_info the stack returned (0 = none)")          \
	X(vegas_enabled, vi->tcpv_enabled, "tcpvegas_info as the stack fills it: enabled")       \
	X(vegas_rttcnt, vi->tcpv_rttcnt, "  ... rttcnt (a count; meaning per stack)")             \
	X(vegas_rtt, vi->tcpv_rtt, "  ... rtt (Vegas: us; meaning per stack)")                   \
	X(vegas_minrtt, vi->tcpv_minrtt, "  ... minrtt (Vegas: us; meaning per stack)")

struct port_range {
	uint16_t lo, hi;
};

struct options {
	unsigned hz;
	uint64_t duration_ns;
	double duration_s;
	uint32_t states;
	/* Socket families to dump; each dump walks the whole established hash once. */
	uint8_t families[2];
	size_t n_families;
	enum out_format format;
	struct port_range ranges[MAX_PORT_ARGS];
	size_t n_ranges;
};

struct counters {
	uint64_t ticks;
	uint64_t late;
	uint64_t skipped;
	uint64_t records;
	uint64_t errors;
	uint64_t max_work_ns;
};

/* Netlink messages are read as structs in place, so keep them aligned. */
static union {
	struct nlmsghdr h;
	char b[RX_BUF_SIZE];
} rx;

static union {
	struct nlmsghdr h;
	char b[NLMSG_SPACE(sizeof(struct inet_diag_req_v2)) + NLA_HDRLEN +
	       MAX_PORT_RANGES * 40 + 4];
} req;
static size_t req_len;

static char line[LINE_BUF_SIZE];
static char stdout_buf[1 << 16];

static struct counters cnt;
static struct options opt;

/* An error per tick at 100 Hz would bury everything else on stderr; cnt.errors counts them. */
#define log_error(...) lfn_err_capped(cnt.errors, MAX_LOGGED_ERRORS, " (further errors are only counted)", __VA_ARGS__)

/* ---- kernel-side filter ---- */

static int cmp_range(const void *a, const void *b)
{
	const struct port_range *x = a, *y = b;

	return (int)x->lo - (int)y->lo;
}

static void merge_ranges(struct options *o)
{
	size_t i, n = 0;

	if (!o->n_ranges)
		return;
	qsort(o->ranges, o->n_ranges, sizeof(o->ranges[0]), cmp_range);
	for (i = 1; i < o->n_ranges; i++) {
		struct port_range *last = &o->ranges[n];

		if ((unsigned)o->ranges[i].lo <= (unsigned)last->hi + 1) {
			if (o->ranges[i].hi > last->hi)
				last->hi = o->ranges[i].hi;
		} else {
			o->ranges[++n] = o->ranges[i];
		}
	}
	o->n_ranges = n + 1;
}

static struct inet_diag_bc_op *bc_op(char *bc, size_t off, uint8_t code, uint8_t yes, uint16_t no)
{
	struct inet_diag_bc_op *op = (struct inet_diag_bc_op *)(bc + off);

	op->code = code;
	op->yes = yes;
	op->no = no;
	return op;
}

/*
 * The kernel audits that every op's "yes" falls through to the next op, so
 * all branching is done with "no" offsets. Per range, 40 bytes:
 *
 *   +0  S_GE lo   no -> +20      (8 bytes: op + port carried in op[1].no)
 *   +8  S_LE hi   no -> +20
 *   +16 JMP           -> accept  (jump to exactly the end = match)
 *   +20 D_GE lo   no -> +40 (next range)
 *   +28 D_LE hi   no -> +40
 *   +36 JMP           -> accept
 *
 * A final 4-byte JMP lands 4 bytes past the end, which the kernel treats as
 * "no match". Returns the program length.
 */
static size_t build_port_filter(char *bc, const struct port_range *r, size_t n)
{
	size_t total = n * 40 + 4, off = 0, i;

	for (i = 0; i < n; i++, off += 40) {
		bc_op(bc, off + 0, INET_DIAG_BC_S_GE, 8, 20);
		bc_op(bc, off + 4, 0, 0, r[i].lo);
		bc_op(bc, off + 8, INET_DIAG_BC_S_LE, 8, 12);
		bc_op(bc, off + 12, 0, 0, r[i].hi);
		bc_op(bc, off + 16, INET_DIAG_BC_JMP, 4, (uint16_t)(total - (off + 16)));
		bc_op(bc, off + 20, INET_DIAG_BC_D_GE, 8, 20);
		bc_op(bc, off + 24, 0, 0, r[i].lo);
		bc_op(bc, off + 28, INET_DIAG_BC_D_LE, 8, 12);
		bc_op(bc, off + 32, 0, 0, r[i].hi);
		bc_op(bc, off + 36, INET_DIAG_BC_JMP, 4, (uint16_t)(total - (off + 36)));
	}
	bc_op(bc, off, INET_DIAG_BC_JMP, 4, 8);
	return total;
}

/*
 * The request is identical every tick except for family and sequence
 * number, so it is built once and patched.
 */
static void build_request(const struct options *o)
{
	struct nlmsghdr *nlh = &req.h;
	struct inet_diag_req_v2 *r = NLMSG_DATA(nlh);

	memset(&req, 0, sizeof(req));
	r->sdiag_protocol = IPPROTO_TCP;
	/*
	 * VEGASINFO asks every stack with a get_info hook for its state: Vegas,
	 * Illinois, NV and lfnlab's own modules answer with tcpvegas_info (BBR and
	 * DCTCP answer with their own structs, which are not read).
	 */
	r->idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1)) |
		       (1 << (INET_DIAG_VEGASINFO - 1));
	r->idiag_states = o->states;
	req_len = NLMSG_SPACE(sizeof(*r));

	if (o->n_ranges) {
		struct nlattr *a = (struct nlattr *)(req.b + req_len);
		size_t bc_len = build_port_filter((char *)a + NLA_HDRLEN, o->ranges, o->n_ranges);

		a->nla_type = INET_DIAG_REQ_BYTECODE;
		a->nla_len = (uint16_t)(NLA_HDRLEN + bc_len);
		req_len += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = (uint32_t)req_len;
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
}

/* ---- output ---- */

static const char *family_name(void)
{
	if (opt.n_families == 2)
		return "both";
	return opt.families[0] == AF_INET ? "inet" : "inet6";
}

static void print_header(void)
{
	size_t i;

	if (opt.format == FMT_JSONL) {
		printf("{\"type\":\"start\",\"version\":%d,\"hz\":%u,\"duration_s\":%g,\"states\":%u,"
		       "\"family\":\"%s\",\"ports\":[",
		       FORMAT_VERSION, opt.hz, opt.duration_s, opt.states, family_name());
		for (i = 0; i < opt.n_ranges; i++)
			printf("%s[%u,%u]", i ? "," : "", opt.ranges[i].lo, opt.ranges[i].hi);
		printf("]}\n");
		return;
	}
	printf("# " PROG " v%d hz=%u duration_s=%g states=0x%x family=%s ports=", FORMAT_VERSION, opt.hz,
	       opt.duration_s, opt.states, family_name());
	if (!opt.n_ranges)
		printf("any");
	for (i = 0; i < opt.n_ranges; i++) {
		if (opt.ranges[i].lo == opt.ranges[i].hi)
			printf("%s%u", i ? "," : "", opt.ranges[i].lo);
		else
			printf("%s%u-%u", i ? "," : "", opt.ranges[i].lo, opt.ranges[i].hi);
	}
	printf("\n#tick\tts_ns\tmono_ns\tladdr\tlport\traddr\trport\tstate\tcc");
#define HDR_COL(name, expr, doc) fputs("\t" #name, stdout);
	NUM_COLUMNS(HDR_COL)
#undef HDR_COL
	putchar('\n');
}

static void print_end(FILE *f, const char *reason, uint64_t elapsed_ns)
{
	/* Self-reported cost, so overhead is visible in every real run, not just in a benchmark. */
	const uint64_t cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);

	if (opt.format == FMT_JSONL)
		fprintf(f,
			"{\"type\":\"end\",\"reason\":\"%s\",\"ticks\":%llu,\"late\":%llu,\"skipped\":%llu,"
			"\"records\":%llu,\"errors\":%llu,\"max_work_ns\":%llu,\"elapsed_ns\":%llu,\"cpu_ns\":%llu}\n",
			reason, (unsigned long long)cnt.ticks, (unsigned long long)cnt.late,
			(unsigned long long)cnt.skipped, (unsigned long long)cnt.records,
			(unsigned long long)cnt.errors, (unsigned long long)cnt.max_work_ns,
			(unsigned long long)elapsed_ns, (unsigned long long)cpu_ns);
	else
		fprintf(f,
			"#end\treason=%s\tticks=%llu\tlate=%llu\tskipped=%llu\trecords=%llu\terrors=%llu"
			"\tmax_work_ns=%llu\telapsed_ns=%llu\tcpu_ns=%llu\n",
			reason, (unsigned long long)cnt.ticks, (unsigned long long)cnt.late,
			(unsigned long long)cnt.skipped, (unsigned long long)cnt.records,
			(unsigned long long)cnt.errors, (unsigned long long)cnt.max_work_ns,
			(unsigned long long)elapsed_ns, (unsigned long long)cpu_ns);
}

struct tick_ctx {
	uint64_t tick, real_ns, mono_ns;
};

/*
 * The cc name comes from the kernel, but a module may name itself anything;
 * keep it from breaking the TSV columns or the JSON string.
 */
static char *put_cc(char *p, const char *cc)
{
	for (; *cc; cc++)
		*p++ = (*cc > ' ' && *cc < 127 && *cc != '"' && *cc != '\\') ? *cc : '?';
	return p;
}

static int write_record(const struct tick_ctx *t, const struct inet_diag_msg *m, const struct tcp_info *tip,
			uint32_t info_len, const char *cc, const struct tcpvegas_info *vi, uint32_t vegas_len)
{
	const struct tcp_info *ti = tip;
	const uint64_t cookie = (uint64_t)m->id.idiag_cookie[0] | (uint64_t)m->id.idiag_cookie[1] << 32;
	char laddr[INET6_ADDRSTRLEN], raddr[INET6_ADDRSTRLEN];
	const char *state = m->idiag_state < ST_MAX && state_names[m->idiag_state] ? state_names[m->idiag_state]
										   : "unknown";
	char *p = line;

	inet_ntop(m->idiag_family, m->id.idiag_src, laddr, sizeof(laddr));
	inet_ntop(m->idiag_family, m->id.idiag_dst, raddr, sizeof(raddr));

	if (opt.format == FMT_JSONL) {
		p = FMT_LIT(p, "{\"type\":\"sample\",\"tick\":");
		p = fmt_u64(p, t->tick);
		p = FMT_LIT(p, ",\"ts_ns\":");
		p = fmt_u64(p, t->real_ns);
		p = FMT_LIT(p, ",\"mono_ns\":");
		p = fmt_u64(p, t->mono_ns);
		p = FMT_LIT(p, ",\"laddr\":\"");
		p = fmt_str(p, laddr);
		p = FMT_LIT(p, "\",\"lport\":");
		p = fmt_u64(p, ntohs(m->id.idiag_sport));
		p = FMT_LIT(p, ",\"raddr\":\"");
		p = fmt_str(p, raddr);
		p = FMT_LIT(p, "\",\"rport\":");
		p = fmt_u64(p, ntohs(m->id.idiag_dport));
		p = FMT_LIT(p, ",\"state\":\"");
		p = fmt_str(p, state);
		if (cc) {
			p = FMT_LIT(p, "\",\"cc\":\"");
			p = put_cc(p, cc);
			p = FMT_LIT(p, "\"");
		} else {
			p = FMT_LIT(p, "\",\"cc\":null");
		}
#define JSON_COL(name, expr, doc)              \
	p = FMT_LIT(p, ",\"" #name "\":"); \
	p = fmt_u64(p, (uint64_t)(expr));
		NUM_COLUMNS(JSON_COL)
#undef JSON_COL
		*p++ = '}';
	} else {
		p = fmt_u64(p, t->tick);
		*p++ = '\t';
		p = fmt_u64(p, t->real_ns);
		*p++ = '\t';
		p = fmt_u64(p, t->mono_ns);
		*p++ = '\t';
		p = fmt_str(p, laddr);
		*p++ = '\t';
		p = fmt_u64(p, ntohs(m->id.idiag_sport));
		*p++ = '\t';
		p = fmt_str(p, raddr);
		*p++ = '\t';
		p = fmt_u64(p, ntohs(m->id.idiag_dport));
		*p++ = '\t';
		p = fmt_str(p, state);
		*p++ = '\t';
		p = cc && *cc ? put_cc(p, cc) : FMT_LIT(p, "-");
#define TSV_COL(name, expr, doc) \
	*p++ = '\t';             \
	p = fmt_u64(p, (uint64_t)(expr));
		NUM_COLUMNS(TSV_COL)
#undef TSV_COL
	}
	*p++ = '\n';

	if (fwrite(line, 1, (size_t)(p - line), stdout) != (size_t)(p - line))
		return -1;
	cnt.records++;
	return 0;
}

/* Returns 0, or -1 if stdout failed (fatal). */
static int handle_diag_msg(const struct tick_ctx *t, const struct nlmsghdr *nlh)
{
	const struct inet_diag_msg *m = NLMSG_DATA(nlh);
	struct tcp_info ti;
	struct tcpvegas_info vi;
	uint32_t info_len = 0, vegas_len = 0;
	const char *cc = NULL;
	char cc_buf[32];
	const char *a;
	size_t rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return 0;

	/* Older kernels send a shorter tcp_info, newer ones a longer one. */
	memset(&ti, 0, sizeof(ti));
	memset(&vi, 0, sizeof(vi));

	a = (const char *)m + NLMSG_ALIGN(sizeof(*m));
	rem = nlh->nlmsg_len - NLMSG_SPACE(sizeof(*m));
	if (nlh->nlmsg_len < NLMSG_SPACE(sizeof(*m)))
		rem = 0;
	while (rem >= sizeof(struct nlattr)) {
		struct nlattr na;
		size_t dlen;

		memcpy(&na, a, sizeof(na));
		if (na.nla_len < NLA_HDRLEN || na.nla_len > rem)
			break;
		dlen = na.nla_len - NLA_HDRLEN;
		switch (na.nla_type & NLA_TYPE_MASK) {
		case INET_DIAG_INFO:
			info_len = (uint32_t)dlen;
			memcpy(&ti, a + NLA_HDRLEN, dlen < sizeof(ti) ? dlen : sizeof(ti));
			break;
		case INET_DIAG_VEGASINFO:
			vegas_len = (uint32_t)dlen;
			memcpy(&vi, a + NLA_HDRLEN, dlen < sizeof(vi) ? dlen : sizeof(vi));
			break;
		case INET_DIAG_CONG:
			if (dlen >= sizeof(cc_buf))
				dlen = sizeof(cc_buf) - 1;
			memcpy(cc_buf, a + NLA_HDRLEN, dlen);
			cc_buf[dlen] = '\0';
			cc = cc_buf;
			break;
		}
		if ((size_t)NLA_ALIGN(na.nla_len) >= rem)
			break;
		a += NLA_ALIGN(na.nla_len);
		rem -= (size_t)NLA_ALIGN(na.nla_len);
	}
	return write_record(t, m, &ti, info_len, cc, &vi, vegas_len);
}

/*
 * One dump for one address family. Returns 0, a negative errno for a
 * netlink failure (tick counted as an error), or -EPIPE-like -1000 when
 * stdout failed.
 */
#define ERR_STDOUT (-1000)

static int dump_family(int fd, uint8_t family, uint32_t seq, const struct tick_ctx *t)
{
	struct inet_diag_req_v2 *r = NLMSG_DATA(&req.h);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	r->sdiag_family = family;
	req.h.nlmsg_seq = seq;
	n = sendto(fd, req.b, req_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	if (n < 0)
		return -errno;

	for (;;) {
		struct iovec iov = { rx.b, sizeof(rx.b) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		const struct nlmsghdr *nlh;
		size_t len;
		int err;

		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		len = (size_t)n;
		for (nlh = &rx.h; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			/* Leftovers of a dump abandoned after an error. */
			if (nlh->nlmsg_seq != seq)
				continue;
			if (lfn_nl_dump_end(nlh, &err))
				return err;
			if (nlh->nlmsg_type == SOCK_DIAG_BY_FAMILY && handle_diag_msg(t, nlh) < 0)
				return ERR_STDOUT;
		}
	}
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS]\n"
		"Sample tcp_info of matching TCP sockets (IPv4 and IPv6) in the current network\n"
		"namespace via sock_diag netlink, one record per socket per tick, on stdout.\n"
		"\n"
		"Options:\n"
		"  --hz N              samples per second, 1..100 (default 10)\n"
		"  --duration SECONDS  run time in seconds, fractions allowed; 0 = until SIGTERM/SIGINT (default 0)\n"
		"  --port P[,P...]     match sockets whose local OR remote port is P; repeatable\n"
		"  --ports LO-HI       match a port range (inclusive); repeatable; no port option = all ports\n"
		"  --state LIST        comma-separated TCP states to include (default established):\n"
		"                      established syn-sent syn-recv fin-wait-1 fin-wait-2 time-wait\n"
		"                      close close-wait last-ack listen closing, or all, or connected\n"
		"                      (all but listen and close)\n"
		"  --family inet|inet6|both\n"
		"                      socket families to dump (default both). This is the socket's\n"
		"                      family: an IPv4 peer accepted on a dual-stack [::] listener is an\n"
		"                      inet6 socket (laddr ::ffff:a.b.c.d). Each family costs one walk of\n"
		"                      the kernel's TCP established hash per tick.\n"
		"  --format tsv|jsonl  output format (default tsv)\n"
		"  --help              this text\n"
		"  --version           print version\n"
		"\n"
		"Ticks are scheduled on CLOCK_MONOTONIC at absolute times start + k/hz, so they do not drift.\n"
		"A tick whose work ends after the next slot began counts as late; the slots it overran\n"
		"are skipped (counted) and sampling resumes at once in the current slot.\n"
		"\n"
		"TSV output (v%d): a '# " PROG "' comment line, a '#tick...' line naming the columns,\n"
		"then one tab-separated line per socket per tick. Columns:\n"
		"  tick                slot number since start (gaps = skipped slots)\n"
		"  ts_ns               CLOCK_REALTIME at the start of the tick, ns since the epoch\n"
		"  mono_ns             CLOCK_MONOTONIC at the start of the tick, ns\n"
		"  laddr lport         local address and port\n"
		"  raddr rport         remote address and port\n"
		"  state               TCP state name as above\n"
		"  cc                  congestion control name ('-' if the kernel gave none)\n",
		FORMAT_VERSION);
#define HELP_COL(name, expr, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	NUM_COLUMNS(HELP_COL)
#undef HELP_COL
	fprintf(f,
		"Values the running kernel's tcp_info does not have are 0; vegas_* are 0 when vegas_len is.\n"
		"The last line is the summary:\n"
		"  #end reason=duration|signal|error ticks=N late=N skipped=N records=N errors=N\n"
		"       max_work_ns=N elapsed_ns=N cpu_ns=N   (tab-separated key=value)\n"
		"ticks = dumps taken, records = sample lines written, errors = ticks whose dump failed,\n"
		"max_work_ns = longest tick (dump + output), elapsed_ns = run time,\n"
		"cpu_ns = CPU time used by the sampler (user + system, incl. the kernel's dump work).\n"
		"\n"
		"JSONL output: one object per line with the same names: {\"type\":\"start\",...},\n"
		"{\"type\":\"sample\",...} per socket per tick (cc is null if missing), {\"type\":\"end\",...}.\n"
		"\n"
		"Exit status: 0 after duration or SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage.\n");
}

static int add_range(struct options *o, unsigned long lo, unsigned long hi)
{
	if (o->n_ranges >= MAX_PORT_ARGS)
		return -1;
	o->ranges[o->n_ranges].lo = (uint16_t)lo;
	o->ranges[o->n_ranges].hi = (uint16_t)hi;
	o->n_ranges++;
	return 0;
}

static int parse_ports(struct options *o, const char *arg)
{
	const char *s = arg;

	for (;;) {
		char *end;
		unsigned long p;

		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		p = strtoul(s, &end, 10);
		if (errno || p < 1 || p > 65535 || (*end && *end != ',') || add_range(o, p, p))
			return -1;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

static int parse_port_range(struct options *o, const char *arg)
{
	char buf[32], *dash;
	uint64_t lo, hi;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	dash = strchr(buf, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	if (parse_u64(buf, 1, 65535, &lo) || parse_u64(dash + 1, 1, 65535, &hi) || lo > hi)
		return -1;
	return add_range(o, lo, hi);
}

static int parse_states(struct options *o, const char *arg)
{
	char buf[256], *tok, *save = NULL;
	uint32_t mask = 0;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int s, found = 0;

		if (!strcmp(tok, "all")) {
			mask |= ALL_STATES;
			continue;
		}
		if (!strcmp(tok, "connected")) {
			mask |= ALL_STATES & ~(1u << ST_LISTEN) & ~(1u << ST_CLOSE);
			continue;
		}
		for (s = 1; s < ST_MAX; s++) {
			if (!strcmp(tok, state_names[s])) {
				mask |= 1u << s;
				found = 1;
			}
		}
		if (!found)
			return -1;
	}
	if (!mask)
		return -1;
	o->states = mask;
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_HZ = 256, OPT_DURATION, OPT_PORT, OPT_PORTS, OPT_STATE, OPT_FAMILY, OPT_FORMAT, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "ports", required_argument, NULL, OPT_PORTS },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "family", required_argument, NULL, OPT_FAMILY },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->hz = 10;
	o->states = 1u << ST_ESTABLISHED;
	o->format = FMT_TSV;
	o->families[0] = AF_INET;
	o->families[1] = AF_INET6;
	o->n_families = 2;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_HZ:
			if (lfn_opt_hz(optarg, &o->hz))
				return -1;
			break;
		case OPT_DURATION:
			if (lfn_opt_duration(optarg, &o->duration_s, &o->duration_ns))
				return -1;
			break;
		case OPT_PORT:
			if (parse_ports(o, optarg)) {
				fprintf(stderr, PROG ": --port needs ports 1..65535, comma-separated, at most %d in all (got '%.40s')\n",
					MAX_PORT_ARGS, optarg);
				return -1;
			}
			break;
		case OPT_PORTS:
			if (parse_port_range(o, optarg)) {
				fprintf(stderr, PROG ": --ports needs LO-HI with 1 <= LO <= HI <= 65535 (got '%s')\n",
					optarg);
				return -1;
			}
			break;
		case OPT_STATE:
			if (parse_states(o, optarg)) {
				fprintf(stderr, PROG ": unknown --state '%s' (see --help)\n", optarg);
				return -1;
			}
			break;
		case OPT_FAMILY:
			if (!strcmp(optarg, "both")) {
				o->families[0] = AF_INET;
				o->n_families = 2;
			} else if (!strcmp(optarg, "inet")) {
				o->families[0] = AF_INET;
				o->n_families = 1;
			} else if (!strcmp(optarg, "inet6")) {
				o->families[0] = AF_INET6;
				o->n_families = 1;
			} else {
				fprintf(stderr, PROG ": --family must be inet, inet6 or both (got '%s')\n", optarg);
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (lfn_opt_format(optarg, &o->format))
				return -1;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	merge_ranges(o);
	if (o->n_ranges > MAX_PORT_RANGES) {
		fprintf(stderr, PROG ": at most %d disjoint port ranges (got %zu)\n", MAX_PORT_RANGES, o->n_ranges);
		return -1;
	}
	return 0;
}

/* ---- main loop ---- */

int main(int argc, char **argv)
{
	const char *reason = "signal";
	struct lfn_slots slots;
	uint64_t k = 0;
	uint32_t seq = 0;
	int fd, status = 0, out_errno = 0;

	lfn_prog = PROG;
	if (parse_args(argc, argv, &opt))
		return 2;

	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		fprintf(stderr, PROG ": netlink socket: %s\n", strerror(errno));
		return 1;
	}
	build_request(&opt);
	/* A blocked netlink read is restarted too; the slot sleep is not. */
	lfn_catch_stop_signals(LFN_SIG_RESTART | LFN_SIG_IGNORE_PIPE);

	print_header();
	if (fflush(stdout)) {
		fprintf(stderr, PROG ": stdout: %s\n", strerror(errno));
		return 1;
	}

	lfn_slots_start(&slots, opt.hz, opt.duration_ns);

	while (k < slots.n) {
		struct tick_ctx t;
		uint64_t done;
		size_t i;
		int rc, err = 0;

		/*
		 * A signal landing between this check and the sleep is only seen
		 * at the next slot, at most 1 s (1/hz) later; acceptable for a
		 * sampler, and simpler than a signalfd/timerfd loop.
		 */
		if (lfn_stop_signal)
			break;
		rc = lfn_slots_sleep(&slots, k);
		if (rc == EINTR)
			continue;
		if (rc) {
			fprintf(stderr, PROG ": clock_nanosleep: %s\n", strerror(rc));
			reason = "error";
			status = 1;
			break;
		}

		t.tick = k;
		t.real_ns = now_ns(CLOCK_REALTIME);
		t.mono_ns = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < opt.n_families && !err; i++)
			err = dump_family(fd, opt.families[i], ++seq, &t);
		cnt.ticks++;
		if (err == ERR_STDOUT || fflush(stdout)) {
			out_errno = errno;
			reason = "error";
			status = 1;
			break;
		}
		if (err) {
			log_error("tick %llu: sock_diag dump failed: %s", (unsigned long long)k, strerror(-err));
			cnt.errors++;
			/* A request the kernel rejects outright will never work; don't spin on it. */
			if (cnt.ticks == 1) {
				reason = "error";
				status = 1;
				break;
			}
		}

		done = now_ns(CLOCK_MONOTONIC);
		if (done - t.mono_ns > cnt.max_work_ns)
			cnt.max_work_ns = done - t.mono_ns;
		k = lfn_slots_next(&slots, k, done, &cnt.late, &cnt.skipped);
	}
	if (k >= slots.n)
		reason = "duration";
	if (lfn_end_record(print_end, reason, now_ns(CLOCK_MONOTONIC) - slots.t0, out_errno))
		status = 1;
	close(fd);
	return status;
}
