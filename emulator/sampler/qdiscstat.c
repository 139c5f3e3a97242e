// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-qdiscstat: periodic qdisc counter and CPU-time poller built on rtnetlink.
 *
 * The lab VM runs under software emulation, where starting a process costs
 * tens of milliseconds, so `tc -s qdisc` in a loop cannot reach 10 Hz, let
 * alone 100. Here one process keeps its sockets and buffers for the whole
 * run and a tick costs one RTM_GETQDISC dump (plus one read of /proc/stat
 * with --cpu).
 *
 * The kernel has no per-device filter for qdisc dumps, so --dev is applied
 * here, by name: names survive a device being re-created between runs,
 * ifindexes do not. ifindex -> name lookups are cached and the cache is
 * dropped whenever an rtnetlink link notification arrives, so a renamed or
 * re-created device is never reported under a stale name.
 *
 * Output goes to stdout through blocking stdio: a slow reader slows the
 * poller down (counted as late/skipped ticks) instead of losing records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lfn_common.h"
#include "lfn_netlink.h"

#define PROG "lfn-qdiscstat"
#define FORMAT_VERSION 1

#define MAX_DEVS 64
#define MAX_LOGGED_ERRORS 5
/* Linked devices in one namespace; a lab router has a handful. Overflow only costs extra ioctls. */
#define LINK_CACHE_SIZE 64

/*
 * The kernel sizes dump datagrams by the reader's last receive length (at
 * least NLMSG_GOODSIZE, which is under 8 KiB on any page size, at most about
 * 32 KiB). Under TCG a page-sized datagram is measurably cheaper than the
 * 32 KiB one a big receive length invites, and ten qdiscs take under 2 KiB,
 * so rx_len starts small and only grows to the whole buffer after a
 * truncated datagram.
 */
#define RX_BUF_SIZE (64 * 1024)
#define LINE_BUF_SIZE 4096
/*
 * Only the cpu lines at the top of /proc/stat are used; the rest (intr,
 * softirq) can be long on big machines and is cut off by the buffer size.
 */
#define PROC_STAT_BUF_SIZE (256 * 1024)

/*
 * Numeric qdisc columns after the fixed prefix (q tick ts_ns mono_ns dev
 * ifindex kind handle parent). One table drives the TSV header, both record
 * writers and --help, so they cannot drift apart.
 */
#define QDISC_COLUMNS(X)                                                                           \
	X(bytes, s->bytes, "bytes passed on (dequeued; ingress: seen), lifetime")                  \
	X(packets, s->packets, "packets passed on, lifetime")                                      \
	X(qlen, s->qlen, "packets queued now")                                                     \
	X(backlog_bytes, s->backlog, "bytes queued now")                                           \
	X(drops, s->drops, "packets dropped, lifetime")                                            \
	X(requeues, s->requeues, "packets handed back by the driver, lifetime (0 without STATS2)") \
	X(overlimits, s->overlimits, "times the qdisc was over its limit/rate, lifetime")

/*
 * CPU time columns, in this order in the output; idx is the field's position
 * on a /proc/stat cpu line (user nice system idle iowait irq softirq steal).
 */
#define CPU_COLUMNS(X)                                                       \
	X(user, 0, "normal processes in user mode")                          \
	X(nice, 1, "niced processes in user mode")                           \
	X(system, 2, "kernel mode, excluding irq and softirq")               \
	X(irq, 5, "hard interrupts")                                         \
	X(softirq, 6, "softirqs (most packet processing, qdisc runs)")       \
	X(idle, 3, "idle")                                                   \
	X(iowait, 4, "idle with I/O outstanding (can go backwards per CPU)") \
	X(steal, 7, "stolen by the hypervisor")

#define PROC_STAT_FIELDS 8

struct options {
	unsigned hz;
	uint64_t duration_ns;
	double duration_s;
	int cpu;
	enum out_format format;
	char devs[MAX_DEVS][IF_NAMESIZE];
	size_t n_devs;
};

struct counters {
	uint64_t ticks;
	uint64_t late;
	uint64_t skipped;
	uint64_t records;
	uint64_t cpu_records;
	/* Qdiscs not reported because their device was deleted before it could be named. */
	uint64_t vanished;
	uint64_t errors;
	uint64_t max_work_ns;
};

struct link_entry {
	int ifindex;
	char name[IF_NAMESIZE];
};

struct qdisc_stats {
	uint64_t bytes, packets;
	uint32_t qlen, backlog, drops, requeues, overlimits;
};

struct tick_ctx {
	uint64_t tick, real_ns, mono_ns;
};

/* Netlink messages are read as structs in place, so keep them aligned. */
static union {
	struct nlmsghdr h;
	char b[RX_BUF_SIZE];
} rx;

static char line[LINE_BUF_SIZE];
static char stdout_buf[1 << 16];
static char stat_buf[PROC_STAT_BUF_SIZE];

static struct counters cnt;
static struct options opt;
static long user_hz;
/* CPU time spent before main(): `ip netns exec` runs in this process before it execs us. */
static uint64_t startup_cpu_ns;

static int nl_fd = -1;
static size_t rx_len;
/* Link notifications arrive on nl_fd; without them the name cache lives one tick. */
static int links_subscribed;
static int ioctl_fd = -1;
static int stat_fd = -1;

static struct link_entry links[LINK_CACHE_SIZE];
static size_t n_links;
static uint64_t dev_seen;

/* An error per tick at 100 Hz would bury everything else on stderr; cnt.errors counts them. */
#define log_error(...) lfn_err_capped(cnt.errors, MAX_LOGGED_ERRORS, " (further errors are only counted)", __VA_ARGS__)

/*
 * Device names may hold '"' and '\\' and qdisc kinds come from modules;
 * keep either from breaking the TSV columns or the JSON string.
 */
static char *put_name(char *p, const char *s)
{
	for (; *s; s++)
		*p++ = (*s > ' ' && *s < 127 && *s != '"' && *s != '\\') ? *s : '?';
	return p;
}

/* The tc notation, so a handle reads the same as in `tc qdisc show`: 1: 1:a :1 root. */
static char *put_handle(char *p, uint32_t h)
{
	if (h == TC_H_ROOT)
		return FMT_LIT(p, "root");
	if (TC_H_MAJ(h) || !TC_H_MIN(h))
		p = fmt_hex32(p, TC_H_MAJ(h) >> 16);
	*p++ = ':';
	if (TC_H_MIN(h))
		p = fmt_hex32(p, TC_H_MIN(h));
	return p;
}

/* ---- ifindex -> name ---- */

static const char *link_name(int ifindex)
{
	struct ifreq ifr;
	size_t i;

	for (i = 0; i < n_links; i++)
		if (links[i].ifindex == ifindex)
			return links[i].name;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = ifindex;
	/* The device may have gone since the dump; then it has no name to report. */
	if (ioctl(ioctl_fd, SIOCGIFNAME, &ifr) < 0)
		return NULL;
	if (n_links == LINK_CACHE_SIZE)
		n_links = 0;
	links[n_links].ifindex = ifindex;
	memcpy(links[n_links].name, ifr.ifr_name, IF_NAMESIZE);
	links[n_links].name[IF_NAMESIZE - 1] = '\0';
	return links[n_links++].name;
}

static int dev_wanted(const char *name)
{
	size_t i;

	if (!opt.n_devs)
		return 1;
	for (i = 0; i < opt.n_devs; i++) {
		if (!strcmp(name, opt.devs[i])) {
			dev_seen |= 1ULL << i;
			return 1;
		}
	}
	return 0;
}

/* ---- output ---- */

static void print_header(void)
{
	size_t i;

	if (opt.format == FMT_JSONL) {
		printf("{\"type\":\"start\",\"version\":%d,\"hz\":%u,\"duration_s\":%g,\"devs\":", FORMAT_VERSION,
		       opt.hz, opt.duration_s);
		if (!opt.n_devs)
			printf("null");
		for (i = 0; i < opt.n_devs; i++)
			printf("%s\"%s\"", i ? "," : "[", opt.devs[i]);
		printf("%s,\"cpu\":%s,\"user_hz\":%ld}\n", opt.n_devs ? "]" : "", opt.cpu ? "true" : "false",
		       user_hz);
		return;
	}
	printf("# " PROG " v%d hz=%u duration_s=%g devs=", FORMAT_VERSION, opt.hz, opt.duration_s);
	if (!opt.n_devs)
		printf("all");
	for (i = 0; i < opt.n_devs; i++)
		printf("%s%s", i ? "," : "", opt.devs[i]);
	printf(" cpu=%d user_hz=%ld\n", opt.cpu, user_hz);
	fputs("#q\ttick\tts_ns\tmono_ns\tdev\tifindex\tkind\thandle\tparent", stdout);
#define HDR_COL(name, expr, doc) fputs("\t" #name, stdout);
	QDISC_COLUMNS(HDR_COL)
#undef HDR_COL
	putchar('\n');
	if (opt.cpu) {
		fputs("#c\ttick\tts_ns\tmono_ns\tuser_hz\tncpu", stdout);
#define HDR_CPU(name, idx, doc) fputs("\t" #name, stdout);
		CPU_COLUMNS(HDR_CPU)
#undef HDR_CPU
		fputs("\t*cpu", stdout);
#define HDR_CPU_REP(name, idx, doc) fputs("\t*" #name, stdout);
		CPU_COLUMNS(HDR_CPU_REP)
#undef HDR_CPU_REP
		putchar('\n');
	}
}

static void print_end(FILE *f, const char *reason, uint64_t elapsed_ns)
{
	/* Self-reported cost, so overhead is visible in every real run, not just in a benchmark. */
	const uint64_t cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);

	if (opt.format == FMT_JSONL)
		fprintf(f,
			"{\"type\":\"end\",\"reason\":\"%s\",\"ticks\":%llu,\"late\":%llu,\"skipped\":%llu,"
			"\"records\":%llu,\"cpu_records\":%llu,\"vanished\":%llu,\"errors\":%llu,"
			"\"max_work_ns\":%llu,\"elapsed_ns\":%llu,\"cpu_ns\":%llu,\"startup_cpu_ns\":%llu}\n",
			reason, (unsigned long long)cnt.ticks, (unsigned long long)cnt.late,
			(unsigned long long)cnt.skipped, (unsigned long long)cnt.records,
			(unsigned long long)cnt.cpu_records, (unsigned long long)cnt.vanished,
			(unsigned long long)cnt.errors,
			(unsigned long long)cnt.max_work_ns, (unsigned long long)elapsed_ns,
			(unsigned long long)cpu_ns, (unsigned long long)startup_cpu_ns);
	else
		fprintf(f,
			"#end\treason=%s\tticks=%llu\tlate=%llu\tskipped=%llu\trecords=%llu\tcpu_records=%llu"
			"\tvanished=%llu\terrors=%llu\tmax_work_ns=%llu\telapsed_ns=%llu\tcpu_ns=%llu"
			"\tstartup_cpu_ns=%llu\n",
			reason, (unsigned long long)cnt.ticks, (unsigned long long)cnt.late,
			(unsigned long long)cnt.skipped, (unsigned long long)cnt.records,
			(unsigned long long)cnt.cpu_records, (unsigned long long)cnt.vanished,
			(unsigned long long)cnt.errors,
			(unsigned long long)cnt.max_work_ns, (unsigned long long)elapsed_ns,
			(unsigned long long)cpu_ns, (unsigned long long)startup_cpu_ns);
}

static char *put_tick_prefix(char *p, const struct tick_ctx *t, const char *type)
{
	if (opt.format == FMT_JSONL) {
		p = FMT_LIT(p, "{\"type\":\"");
		p = put_name(p, type);
		p = FMT_LIT(p, "\",\"tick\":");
		p = fmt_u64(p, t->tick);
		p = FMT_LIT(p, ",\"ts_ns\":");
		p = fmt_u64(p, t->real_ns);
		p = FMT_LIT(p, ",\"mono_ns\":");
		return fmt_u64(p, t->mono_ns);
	}
	*p++ = type[0];
	*p++ = '\t';
	p = fmt_u64(p, t->tick);
	*p++ = '\t';
	p = fmt_u64(p, t->real_ns);
	*p++ = '\t';
	return fmt_u64(p, t->mono_ns);
}

static int write_line(char *end)
{
	size_t len = (size_t)(end - line);

	return fwrite(line, 1, len, stdout) == len ? 0 : -1;
}

static int write_qdisc(const struct tick_ctx *t, const struct tcmsg *tc, const char *dev, const char *kind,
		       const struct qdisc_stats *s)
{
	char *p = put_tick_prefix(line, t, "qdisc");

	/* The kernel always names the kind; '-' only keeps a field from ever being empty. */
	if (!*kind)
		kind = "-";
	if (opt.format == FMT_JSONL) {
		p = FMT_LIT(p, ",\"dev\":\"");
		p = put_name(p, dev);
		p = FMT_LIT(p, "\",\"ifindex\":");
		p = fmt_u64(p, (uint32_t)tc->tcm_ifindex);
		p = FMT_LIT(p, ",\"kind\":\"");
		p = put_name(p, kind);
		p = FMT_LIT(p, "\",\"handle\":\"");
		p = put_handle(p, tc->tcm_handle);
		p = FMT_LIT(p, "\",\"parent\":\"");
		p = put_handle(p, tc->tcm_parent);
		*p++ = '"';
#define JSON_COL(name, expr, doc)              \
	p = FMT_LIT(p, ",\"" #name "\":"); \
	p = fmt_u64(p, (uint64_t)(expr));
		QDISC_COLUMNS(JSON_COL)
#undef JSON_COL
		*p++ = '}';
	} else {
		*p++ = '\t';
		p = put_name(p, dev);
		*p++ = '\t';
		p = fmt_u64(p, (uint32_t)tc->tcm_ifindex);
		*p++ = '\t';
		p = put_name(p, kind);
		*p++ = '\t';
		p = put_handle(p, tc->tcm_handle);
		*p++ = '\t';
		p = put_handle(p, tc->tcm_parent);
#define TSV_COL(name, expr, doc) \
	*p++ = '\t';             \
	p = fmt_u64(p, (uint64_t)(expr));
		QDISC_COLUMNS(TSV_COL)
#undef TSV_COL
	}
	*p++ = '\n';
	if (write_line(p))
		return -1;
	cnt.records++;
	return 0;
}

/* ---- qdisc dump ---- */

/* Attributes are copied out with memcpy: a payload need not be aligned for its struct. */
struct attr_iter {
	const char *p;
	size_t rem;
};

static int attr_next(struct attr_iter *it, unsigned *type, const char **data, size_t *len)
{
	struct nlattr na;
	size_t step;

	if (it->rem < NLA_HDRLEN)
		return 0;
	memcpy(&na, it->p, sizeof(na));
	if (na.nla_len < NLA_HDRLEN || na.nla_len > it->rem)
		return 0;
	*type = na.nla_type & NLA_TYPE_MASK;
	*data = it->p + NLA_HDRLEN;
	*len = na.nla_len - NLA_HDRLEN;
	step = NLA_ALIGN(na.nla_len);
	if (step > it->rem)
		step = it->rem;
	it->p += step;
	it->rem -= step;
	return 1;
}

/* Field by field, so a struct that grows or shrinks across kernel versions still reads. */
#define COPY_FIELD(dst, data, len, type, field)                                             \
	do {                                                                                   \
		if ((len) >= offsetof(type, field) + sizeof(((type *)0)->field)) {              \
			__typeof__(((type *)0)->field) v_;                                       \
			memcpy(&v_, (data) + offsetof(type, field), sizeof(v_));                  \
			(dst) = v_;                                                                \
		}                                                                              \
	} while (0)

enum { HAVE_BASIC = 1, HAVE_QUEUE = 2, HAVE_PKT64 = 4 };

static unsigned parse_stats2(const char *data, size_t len, struct qdisc_stats *s)
{
	struct attr_iter it = { data, len };
	unsigned type, have = 0;
	const char *d;
	size_t dl;
	uint64_t pkt64 = 0;

	while (attr_next(&it, &type, &d, &dl)) {
		switch (type) {
		case TCA_STATS_BASIC:
			COPY_FIELD(s->bytes, d, dl, struct gnet_stats_basic, bytes);
			COPY_FIELD(s->packets, d, dl, struct gnet_stats_basic, packets);
			have |= HAVE_BASIC;
			break;
		case TCA_STATS_PKT64:
			/* Only sent once the packet count no longer fits the u32 in BASIC. */
			if (dl >= sizeof(pkt64)) {
				memcpy(&pkt64, d, sizeof(pkt64));
				have |= HAVE_PKT64;
			}
			break;
		case TCA_STATS_QUEUE:
			COPY_FIELD(s->qlen, d, dl, struct gnet_stats_queue, qlen);
			COPY_FIELD(s->backlog, d, dl, struct gnet_stats_queue, backlog);
			COPY_FIELD(s->drops, d, dl, struct gnet_stats_queue, drops);
			COPY_FIELD(s->requeues, d, dl, struct gnet_stats_queue, requeues);
			COPY_FIELD(s->overlimits, d, dl, struct gnet_stats_queue, overlimits);
			have |= HAVE_QUEUE;
			break;
		}
	}
	if (have & HAVE_PKT64)
		s->packets = pkt64;
	return have;
}

/* Returns 0, or -1 if stdout failed (fatal). */
static int handle_qdisc_msg(const struct tick_ctx *t, const struct nlmsghdr *nlh)
{
	const struct tcmsg *tc = NLMSG_DATA(nlh);
	struct qdisc_stats s = { 0 };
	const char *old_stats = NULL, *d, *dev;
	size_t old_len = 0, dl;
	char kind[IF_NAMESIZE] = "";
	struct attr_iter it;
	unsigned type, have = 0;

	if (nlh->nlmsg_len < NLMSG_SPACE(sizeof(*tc)))
		return 0;
	dev = link_name(tc->tcm_ifindex);
	if (!dev) {
		cnt.vanished++;
		return 0;
	}
	if (!dev_wanted(dev))
		return 0;

	it.p = (const char *)tc + NLMSG_ALIGN(sizeof(*tc));
	it.rem = nlh->nlmsg_len - NLMSG_SPACE(sizeof(*tc));
	while (attr_next(&it, &type, &d, &dl)) {
		switch (type) {
		case TCA_KIND:
			if (dl >= sizeof(kind))
				dl = sizeof(kind) - 1;
			memcpy(kind, d, dl);
			kind[dl] = '\0';
			break;
		case TCA_STATS2:
			have |= parse_stats2(d, dl, &s);
			break;
		case TCA_STATS:
			old_stats = d;
			old_len = dl;
			break;
		}
	}
	/* The kernel sends both; tc_stats is only the fallback (32-bit packets, no requeues). */
	if (old_stats && !(have & HAVE_BASIC)) {
		COPY_FIELD(s.bytes, old_stats, old_len, struct tc_stats, bytes);
		COPY_FIELD(s.packets, old_stats, old_len, struct tc_stats, packets);
	}
	if (old_stats && !(have & HAVE_QUEUE)) {
		COPY_FIELD(s.qlen, old_stats, old_len, struct tc_stats, qlen);
		COPY_FIELD(s.backlog, old_stats, old_len, struct tc_stats, backlog);
		COPY_FIELD(s.drops, old_stats, old_len, struct tc_stats, drops);
		COPY_FIELD(s.overlimits, old_stats, old_len, struct tc_stats, overlimits);
	}
	return write_qdisc(t, tc, dev, kind, &s);
}

#define ERR_STDOUT (-1000)

/*
 * The dump socket also listens to link notifications: they queue up between
 * ticks and are read with the next dump, ahead of its replies, so a rename
 * is seen before the records that carry the new name, at no extra syscall.
 */
static int open_dump_socket(void)
{
	struct sockaddr_nl groups = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };

	nl_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0)
		return -errno;
	links_subscribed = bind(nl_fd, (struct sockaddr *)&groups, sizeof(groups)) == 0;
	n_links = 0;
	return 0;
}

/*
 * One RTM_GETQDISC dump. Returns 0, a negative errno for a netlink failure,
 * or ERR_STDOUT when stdout failed.
 */
static int dump_qdiscs(uint32_t seq, const struct tick_ctx *t)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg tc;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.tc));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = seq;
	req.tc.tcm_family = AF_UNSPEC;
	n = sendto(nl_fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	if (n < 0)
		return -errno;

	for (;;) {
		struct iovec iov = { rx.b, rx_len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		const struct nlmsghdr *nlh;
		size_t len;
		int err;

		n = recvmsg(nl_fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Notifications overran the socket: names may be stale, the dump is intact. */
			if (errno == ENOBUFS) {
				n_links = 0;
				continue;
			}
			return -errno;
		}
		len = (size_t)n;
		/*
		 * A link notification is a datagram of its own. Its seq and pid are
		 * those of whoever changed the link, so the type is what tells it
		 * apart; its body is not needed, so truncation does not matter.
		 */
		if (len >= NLMSG_HDRLEN && (rx.h.nlmsg_type == RTM_NEWLINK || rx.h.nlmsg_type == RTM_DELLINK)) {
			n_links = 0;
			continue;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			rx_len = sizeof(rx.b);
			return -EMSGSIZE;
		}
		for (nlh = &rx.h; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (lfn_nl_dump_end(nlh, &err))
				return err;
			if (nlh->nlmsg_type == RTM_NEWQDISC && handle_qdisc_msg(t, nlh) < 0)
				return ERR_STDOUT;
		}
	}
}

/* ---- /proc/stat ---- */

static const char *scan_u64(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	while (p < end && *p >= '0' && *p <= '9')
		x = x * 10 + (uint64_t)(*p++ - '0');
	*v = x;
	return p;
}

/*
 * Parses one "cpu..." line into f[]; fields an old kernel lacks stay 0.
 * Returns the start of the next line, or NULL at a non-cpu line or the end.
 */
static const char *parse_cpu_line(const char *p, const char *end, long *cpu, uint64_t f[PROC_STAT_FIELDS])
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	uint64_t v;
	int i;

	/* A line cut off by the buffer end is not trusted. */
	if (!eol || eol - p < 4 || memcmp(p, "cpu", 3))
		return NULL;
	p += 3;
	if (*p == ' ') {
		*cpu = -1;
	} else {
		if (!scan_u64(p, eol, &v))
			return NULL;
		*cpu = (long)v;
		while (p < eol && *p >= '0' && *p <= '9')
			p++;
	}
	for (i = 0; i < PROC_STAT_FIELDS; i++) {
		const char *q = scan_u64(p, eol, &f[i]);

		if (!q) {
			for (; i < PROC_STAT_FIELDS; i++)
				f[i] = 0;
			break;
		}
		p = q;
	}
	return eol + 1;
}

static char *put_cpu_fields(char *p, const uint64_t f[PROC_STAT_FIELDS])
{
	if (opt.format == FMT_JSONL) {
#define JSON_CPU(name, idx, doc)           \
	p = FMT_LIT(p, ",\"" #name "\":"); \
	p = fmt_u64(p, f[idx]);
		CPU_COLUMNS(JSON_CPU)
#undef JSON_CPU
	} else {
#define TSV_CPU(name, idx, doc) \
	*p++ = '\t';            \
	p = fmt_u64(p, f[idx]);
		CPU_COLUMNS(TSV_CPU)
#undef TSV_CPU
	}
	return p;
}

/*
 * Returns 0, a negative errno if /proc/stat could not be read or parsed, or
 * ERR_STDOUT. The record is written in pieces: with many CPUs it outgrows
 * the line buffer.
 */
static int write_cpu(const struct tick_ctx *t)
{
	uint64_t f[PROC_STAT_FIELDS];
	const char *s, *end;
	char *p;
	ssize_t n;
	long cpu;
	uint64_t ncpu = 0;

	/* seq_file regenerates the whole file on every read from offset 0: one syscall per tick. */
	do
		n = pread(stat_fd, stat_buf, sizeof(stat_buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	end = stat_buf + n;
	s = parse_cpu_line(stat_buf, end, &cpu, f);
	if (!s || cpu != -1)
		return -EPROTO;
	for (const char *q = s; q && q < end;) {
		uint64_t g[PROC_STAT_FIELDS];

		q = parse_cpu_line(q, end, &cpu, g);
		if (q)
			ncpu++;
	}

	p = put_tick_prefix(line, t, "cpu");
	if (opt.format == FMT_JSONL) {
		p = FMT_LIT(p, ",\"user_hz\":");
		p = fmt_u64(p, (uint64_t)user_hz);
		p = FMT_LIT(p, ",\"ncpu\":");
		p = fmt_u64(p, ncpu);
		p = put_cpu_fields(p, f);
		p = FMT_LIT(p, ",\"cpus\":[");
	} else {
		*p++ = '\t';
		p = fmt_u64(p, (uint64_t)user_hz);
		*p++ = '\t';
		p = fmt_u64(p, ncpu);
		p = put_cpu_fields(p, f);
	}
	for (uint64_t i = 0; i < ncpu; i++) {
		/* One group is at most ~200 bytes. */
		if (p - line > LINE_BUF_SIZE - 256) {
			if (write_line(p))
				return ERR_STDOUT;
			p = line;
		}
		s = parse_cpu_line(s, end, &cpu, f);
		if (opt.format == FMT_JSONL) {
			if (i)
				*p++ = ',';
			p = FMT_LIT(p, "{\"cpu\":");
			p = fmt_u64(p, (uint64_t)cpu);
			p = put_cpu_fields(p, f);
			*p++ = '}';
		} else {
			*p++ = '\t';
			p = fmt_u64(p, (uint64_t)cpu);
			p = put_cpu_fields(p, f);
		}
	}
	if (opt.format == FMT_JSONL)
		p = FMT_LIT(p, "]}");
	*p++ = '\n';
	if (write_line(p))
		return ERR_STDOUT;
	cnt.cpu_records++;
	return 0;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTIONS]\n"
		"Sample the counters of every qdisc in the current network namespace via rtnetlink\n"
		"(RTM_GETQDISC), one record per qdisc per tick, and optionally CPU time from /proc/stat,\n"
		"on stdout.\n"
		"\n"
		"Options:\n"
		"  --hz N              samples per second, 1..100 (default 10)\n"
		"  --duration SECONDS  run time in seconds, fractions allowed; 0 = until SIGTERM/SIGINT (default 0)\n"
		"  --dev NAME          only qdiscs of this device; repeatable (at most %d); default all devices.\n"
		"                      Matched by name at every tick, so the device may appear later.\n"
		"  --cpu               also one CPU-time record per tick from /proc/stat\n"
		"  --format tsv|jsonl  output format (default tsv)\n"
		"  --help              this text\n"
		"  --version           print version\n"
		"\n"
		"Ticks are scheduled on CLOCK_MONOTONIC at absolute times start + k/hz, so they do not drift.\n"
		"A tick whose work ends after the next slot began counts as late; the slots it overran\n"
		"are skipped (counted) and sampling resumes at once in the current slot.\n"
		"\n"
		"TSV output (v%d): a '# " PROG "' comment line, a '#q...' line naming the qdisc columns,\n"
		"with --cpu a '#c...' line naming the cpu columns, then tab-separated records whose\n"
		"first field is the record kind.\n"
		"\n"
		"Qdisc record, one per qdisc per tick:\n"
		"  q                   record kind\n"
		"  tick                slot number since start (gaps = skipped slots)\n"
		"  ts_ns               CLOCK_REALTIME at the start of the tick, ns since the epoch\n"
		"  mono_ns             CLOCK_MONOTONIC at the start of the tick, ns\n"
		"  dev                 device name\n"
		"  ifindex             device index\n"
		"  kind                qdisc type (tbf, htb, netem, fq_codel, noqueue, ingress, ...)\n"
		"  handle              handle in tc notation, e.g. 1: or 0:\n"
		"  parent              root, or the parent class in tc notation (1:1, :1, ffff:fff1 for\n"
		"                      ingress/clsact)\n",
		MAX_DEVS, FORMAT_VERSION);
#define HELP_COL(name, expr, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	QDISC_COLUMNS(HELP_COL)
#undef HELP_COL
	fprintf(f,
		"\n"
		"CPU record (--cpu), one per tick; raw cumulative counters in jiffies of user_hz per\n"
		"second, as in /proc/stat (percentages come from the deltas of two records):\n"
		"  c                   record kind\n"
		"  tick ts_ns mono_ns  as above\n"
		"  user_hz             jiffies per second (sysconf(_SC_CLK_TCK))\n"
		"  ncpu                number of per-CPU groups that follow the totals (online CPUs)\n");
#define HELP_CPU(name, idx, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	CPU_COLUMNS(HELP_CPU)
#undef HELP_CPU
	fprintf(f,
		"                      (the above: sums over all CPUs)\n"
		"  *cpu *user ... *steal\n"
		"                      then ncpu groups of 9 fields: the CPU number and its 8 counters\n"
		"                      in the same order (the column line shows one group, '*'-marked)\n"
		"\n"
		"The last line is the summary:\n"
		"  #end reason=duration|signal|error ticks=N late=N skipped=N records=N cpu_records=N\n"
		"       vanished=N errors=N max_work_ns=N elapsed_ns=N cpu_ns=N startup_cpu_ns=N\n"
		"       (tab-separated key=value)\n"
		"ticks = ticks run, records = qdisc lines written, cpu_records = cpu lines written,\n"
		"vanished = qdiscs not reported because their device was deleted before it could be named,\n"
		"errors = failed qdisc dumps plus failed /proc/stat reads, max_work_ns = longest tick,\n"
		"elapsed_ns = run time, cpu_ns = CPU time of the process (user + system, incl. the kernel's\n"
		"dump work), startup_cpu_ns = the part of it spent before the poller started (e.g. by\n"
		"`ip netns exec`, which execs the poller in its own process); the polling cost is\n"
		"(cpu_ns - startup_cpu_ns) / elapsed_ns.\n"
		"\n"
		"JSONL output: one object per line with the same names: {\"type\":\"start\",...},\n"
		"{\"type\":\"qdisc\",...}, {\"type\":\"cpu\",...,\"cpus\":[{\"cpu\":0,...}]},\n"
		"{\"type\":\"end\",...}.\n"
		"\n"
		"Exit status: 0 after duration or SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage.\n");
}

/* What the kernel accepts as a device name, minus quotes and backslashes so the header needs no escaping. */
static int valid_dev_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s >= 127 || *s == '/' || *s == ':' || *s == '"' || *s == '\\')
			return 0;
	return 1;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_HZ = 256, OPT_DURATION, OPT_DEV, OPT_CPU, OPT_FORMAT, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "cpu", no_argument, NULL, OPT_CPU },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->hz = 10;
	o->format = FMT_TSV;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		size_t i;

		switch (c) {
		case OPT_HZ:
			if (lfn_opt_hz(optarg, &o->hz))
				return -1;
			break;
		case OPT_DURATION:
			if (lfn_opt_duration(optarg, &o->duration_s, &o->duration_ns))
				return -1;
			break;
		case OPT_DEV:
			if (!valid_dev_name(optarg)) {
				fprintf(stderr, PROG ": --dev needs a device name of 1..%d characters (got '%.40s')\n",
					IF_NAMESIZE - 1, optarg);
				return -1;
			}
			for (i = 0; i < o->n_devs && strcmp(o->devs[i], optarg); i++)
				;
			if (i < o->n_devs)
				break;
			if (o->n_devs == MAX_DEVS) {
				fprintf(stderr, PROG ": at most %d --dev options\n", MAX_DEVS);
				return -1;
			}
			strcpy(o->devs[o->n_devs++], optarg);
			break;
		case OPT_CPU:
			o->cpu = 1;
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
	return 0;
}

/* ---- main loop ---- */

static int open_sockets(void)
{
	int err;

	rx_len = sysconf(_SC_PAGESIZE) <= 4096 ? 4096 : 8192;
	err = open_dump_socket();

	if (err) {
		fprintf(stderr, PROG ": netlink socket: %s\n", strerror(-err));
		return -1;
	}
	/* SIOCGIFNAME works on any socket; a datagram socket needs no protocol support. */
	ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ioctl_fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (opt.cpu) {
		stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
		if (stat_fd < 0) {
			fprintf(stderr, PROG ": /proc/stat: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *reason = "signal";
	struct lfn_slots slots;
	uint64_t k = 0;
	uint32_t seq = 0;
	int status = 0, out_errno = 0;
	size_t i;

	lfn_prog = PROG;
	startup_cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (parse_args(argc, argv, &opt))
		return 2;
	user_hz = sysconf(_SC_CLK_TCK);

	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));

	if (open_sockets())
		return 1;
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
		int rc, err, cpu_err = 0;

		/*
		 * A signal landing between this check and the sleep is only seen
		 * at the next slot, at most 1 s (1/hz) later; acceptable for a
		 * poller, and simpler than a signalfd/timerfd loop.
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
		if (!links_subscribed)
			n_links = 0;
		/* 0 is never a dump's sequence number. */
		if (!++seq)
			seq = 1;
		err = dump_qdiscs(seq, &t);
		if (err != ERR_STDOUT && opt.cpu)
			cpu_err = write_cpu(&t);
		cnt.ticks++;
		if (err == ERR_STDOUT || cpu_err == ERR_STDOUT || fflush(stdout)) {
			out_errno = errno;
			reason = "error";
			status = 1;
			break;
		}
		if (err) {
			log_error("tick %llu: qdisc dump failed: %s", (unsigned long long)k, strerror(-err));
			cnt.errors++;
			/*
			 * The kernel may still be feeding the abandoned dump to this
			 * socket and would refuse the next one with EBUSY; start afresh.
			 */
			close(nl_fd);
			rc = open_dump_socket();
			if (rc) {
				fprintf(stderr, PROG ": netlink socket: %s\n", strerror(-rc));
				reason = "error";
				status = 1;
				break;
			}
		}
		if (cpu_err) {
			log_error("tick %llu: reading /proc/stat failed: %s", (unsigned long long)k,
				  strerror(-cpu_err));
			cnt.errors++;
		}
		/* A request the kernel rejects outright will never work; don't spin on it. */
		if ((err || cpu_err) && cnt.ticks == 1) {
			reason = "error";
			status = 1;
			break;
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
	/* A misspelt --dev would otherwise just yield an empty run. */
	for (i = 0; i < opt.n_devs; i++)
		if (!(dev_seen & (1ULL << i)))
			fprintf(stderr, PROG ": warning: no qdisc seen on device '%s'\n", opt.devs[i]);
	return status;
}
