// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-udpsink: receives lfn-udpgen datagrams on one UDP port and reports per
 * interval what arrived: datagrams, IP-layer bytes, sequence gaps, late
 * (reordered) and duplicate datagrams, one-way delay, receive-buffer drops.
 *
 * Datagrams are assigned to intervals by the kernel's receive timestamp
 * (SO_TIMESTAMPNS), not by when this process got round to reading them, and
 * an interval is written only after the socket queue has been drained, so a
 * busy CPU delays the report line but does not move datagrams between
 * intervals. Only the first 64 bytes of each datagram are copied out
 * (recvmmsg with MSG_TRUNC still returns the full length).
 *
 * One-way delay = kernel receive time - the sender's CLOCK_REALTIME stamp;
 * it means something only when both ends read the same clock (namespaces
 * of one machine) or well-synchronised ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "lfnudp.h"

#define PROG "lfn-udpsink"
#define FORMAT_VERSION 1

#define BATCH 64
/* Bytes copied out of each datagram; only the 16-byte header is used. */
#define PEEK_LEN 64
/* Sequence numbers remembered for duplicate detection behind the highest one seen. */
#define WINDOW 65536
/* Datagrams read in one go before the loop looks at the clock and signals again. */
#define MAX_DRAIN (BATCH * 256)
#define RCVBUF_BYTES (4 * 1024 * 1024)
#define MAX_LOGGED_ERRORS 5
#define NEVER_NS UINT64_MAX

struct options {
	struct sockaddr_storage bind;
	socklen_t bind_len;
	char bind_text[INET6_ADDRSTRLEN + 16];
	unsigned hz;
	double duration_s;
	uint64_t duration_ns;
};

struct counters {
	uint64_t datagrams;
	uint64_t ip_bytes;
	uint64_t lost; /* datagrams skipped over by a higher sequence number */
	uint64_t reordered;
	uint64_t duplicate;
	uint64_t owd_n;
	int64_t owd_min;
	int64_t owd_max;
	double owd_sum;
};

static struct options opt;
static struct counters cur, tot;
static uint64_t ignored, logged_errors;
static int stdout_failed;

static uint64_t t0_mono, t0_real;
static uint64_t tick;
static uint64_t end_rel;
static unsigned overhead;

/* Sequence state. */
static int have_seq;
static uint64_t first_seq, max_seq;
static uint64_t seen_bits[WINDOW / 64];

/* The one sender this sink follows: the source of the first valid datagram. */
static int have_peer;
static struct sockaddr_storage peer;

/* SO_RXQ_OVFL: the socket's cumulative drop count, as of the latest datagram. */
static uint32_t drops_now, drops_reported;

static struct mmsghdr msgs[BATCH];
static struct iovec iovs[BATCH];
static unsigned char bufs[BATCH][PEEK_LEN];
static struct sockaddr_storage addrs[BATCH];
static union {
	struct cmsghdr align;
	char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t)) + 64];
} ctrls[BATCH];

static char stdout_buf[1 << 14];

/* Errors can repeat per datagram; past MAX_LOGGED_ERRORS they are no longer printed. */
#define log_error(...) lfn_err_capped(logged_errors++, MAX_LOGGED_ERRORS, " (further messages suppressed)", __VA_ARGS__)

static uint64_t boundary_ns(uint64_t k)
{
	return k * NSEC_PER_SEC / opt.hz;
}

/* ---- output ---- */

static void print_header(int rcvbuf)
{
	printf("# " PROG " v%d bind=%s report_hz=%u duration_s=%.15g rcvbuf=%d ip_overhead=%u"
	       " start_mono_ns=%llu start_ts_ns=%llu\n",
	       FORMAT_VERSION, opt.bind_text, opt.hz, opt.duration_s, rcvbuf, overhead,
	       (unsigned long long)t0_mono, (unsigned long long)t0_real);
	printf("#tick\tts_ns\tmono_ns\tinterval_ns\tdatagrams\tip_bytes\tlost\treordered\tduplicate"
	       "\towd_min_ns\towd_mean_ns\towd_max_ns\tsock_drops\n");
}

/* min, mean, max one-way delay as text; '-' when nothing arrived. */
static void format_owd(const struct counters *c, char *out, size_t n)
{
	if (!c->owd_n)
		snprintf(out, n, "-\t-\t-");
	else
		snprintf(out, n, "%lld\t%.0f\t%lld", (long long)c->owd_min, c->owd_sum / (double)c->owd_n,
			 (long long)c->owd_max);
}

static void emit_interval(uint64_t end_ns)
{
	const uint64_t start = boundary_ns(tick);
	char owd[80];

	format_owd(&cur, owd, sizeof(owd));
	printf("%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%u\n", (unsigned long long)tick,
	       (unsigned long long)(t0_real + start), (unsigned long long)(t0_mono + start),
	       (unsigned long long)(end_ns - start), (unsigned long long)cur.datagrams,
	       (unsigned long long)cur.ip_bytes, (unsigned long long)cur.lost, (unsigned long long)cur.reordered,
	       (unsigned long long)cur.duplicate, owd, drops_now - drops_reported);
	if (fflush(stdout))
		stdout_failed = 1;
	drops_reported = drops_now;
	tot.datagrams += cur.datagrams;
	tot.ip_bytes += cur.ip_bytes;
	tot.lost += cur.lost;
	tot.reordered += cur.reordered;
	tot.duplicate += cur.duplicate;
	if (cur.owd_n) {
		if (!tot.owd_n || cur.owd_min < tot.owd_min)
			tot.owd_min = cur.owd_min;
		if (!tot.owd_n || cur.owd_max > tot.owd_max)
			tot.owd_max = cur.owd_max;
		tot.owd_n += cur.owd_n;
		tot.owd_sum += cur.owd_sum;
	}
	memset(&cur, 0, sizeof(cur));
	tick++;
}

/* Writes every whole interval that ended by `rel` (never past the end of the run). */
static void emit_through(uint64_t rel)
{
	while (!stdout_failed && boundary_ns(tick + 1) <= rel && boundary_ns(tick + 1) <= end_rel)
		emit_interval(boundary_ns(tick + 1));
}

static void print_end(FILE *f, const char *reason, uint64_t elapsed_ns)
{
	const uint64_t cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	/* Gaps later filled by a late datagram were not losses after all. */
	const uint64_t lost = tot.lost > tot.reordered ? tot.lost - tot.reordered : 0;

	fprintf(f,
		"#end\treason=%s\treceived=%llu\tip_bytes=%llu\tlost=%llu\treordered=%llu\tduplicate=%llu"
		"\tignored=%llu\tsock_drops=%u",
		reason, (unsigned long long)tot.datagrams, (unsigned long long)tot.ip_bytes,
		(unsigned long long)lost, (unsigned long long)tot.reordered, (unsigned long long)tot.duplicate,
		(unsigned long long)ignored, drops_now);
	if (have_seq)
		fprintf(f, "\tfirst_seq=%llu\tmax_seq=%llu", (unsigned long long)first_seq,
			(unsigned long long)max_seq);
	else
		fputs("\tfirst_seq=-\tmax_seq=-", f);
	if (tot.owd_n)
		fprintf(f, "\towd_min_ns=%lld\towd_mean_ns=%.0f\towd_max_ns=%lld", (long long)tot.owd_min,
			tot.owd_sum / (double)tot.owd_n, (long long)tot.owd_max);
	else
		fputs("\towd_min_ns=-\towd_mean_ns=-\towd_max_ns=-", f);
	fprintf(f, "\telapsed_ns=%llu\tcpu_ns=%llu\n", (unsigned long long)elapsed_ns, (unsigned long long)cpu_ns);
}

/* ---- sequence accounting ---- */

static int seen_test(uint64_t s)
{
	return (int)(seen_bits[(s % WINDOW) / 64] >> (s % 64) & 1);
}

static void seen_set(uint64_t s)
{
	seen_bits[(s % WINDOW) / 64] |= 1ULL << (s % 64);
}

static void seen_clear(uint64_t s)
{
	seen_bits[(s % WINDOW) / 64] &= ~(1ULL << (s % 64));
}

static void account_seq(uint64_t seq)
{
	if (!have_seq) {
		/* The generator numbers from 0: anything before the first arrival is missing. */
		have_seq = 1;
		first_seq = seq;
		max_seq = seq;
		cur.lost += seq;
		seen_set(seq);
		return;
	}
	if (seq > max_seq) {
		uint64_t s;

		cur.lost += seq - max_seq - 1;
		if (seq - max_seq >= WINDOW)
			memset(seen_bits, 0, sizeof(seen_bits));
		else
			for (s = max_seq + 1; s < seq; s++)
				seen_clear(s);
		seen_set(seq);
		max_seq = seq;
	} else if (max_seq - seq < WINDOW) {
		if (seen_test(seq)) {
			cur.duplicate++;
		} else {
			seen_set(seq);
			cur.reordered++;
		}
	} else {
		/* Too far behind to tell a duplicate; take it as a late arrival. */
		cur.reordered++;
	}
}

static int same_peer(const struct sockaddr_storage *a)
{
	if (a->ss_family != peer.ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)a, *y = (const struct sockaddr_in *)&peer;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a, *y = (const struct sockaddr_in6 *)&peer;

		return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return 0;
}

/*
 * One datagram. `real_minus_mono` converts its CLOCK_REALTIME receive stamp
 * to the monotonic timeline of the intervals; `now_rel` bounds it.
 */
static void handle_datagram(struct msghdr *mh, unsigned len, int64_t real_minus_mono, uint64_t now_rel)
{
	struct cmsghdr *cm;
	const unsigned char *buf = mh->msg_iov[0].iov_base;
	uint64_t rx_real = 0, rx_rel, tx_real;
	int64_t owd;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			rx_real = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
		} else if (cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&drops_now, CMSG_DATA(cm), sizeof(drops_now));
		}
	}
	if (len < LFNUDP_HDR_LEN || (have_peer && !same_peer(mh->msg_name))) {
		if (ignored++ == 0)
			log_error("ignoring a datagram %s", len < LFNUDP_HDR_LEN ? "shorter than 16 bytes"
										: "from a second sender");
		return;
	}
	if (!have_peer) {
		have_peer = 1;
		memcpy(&peer, mh->msg_name, sizeof(peer));
	}
	if (!rx_real)
		rx_real = (uint64_t)((int64_t)(t0_mono + now_rel) + real_minus_mono);
	rx_rel = (uint64_t)((int64_t)rx_real - real_minus_mono) - t0_mono;
	/* Clock adjustments or a stamp from before the start: keep it inside (start, now]. */
	if ((int64_t)rx_rel < 0 || rx_rel > now_rel)
		rx_rel = now_rel;
	if (rx_rel >= end_rel)
		return; /* arrived after the run's end: outside the measurement */
	emit_through(rx_rel);

	tx_real = get_be64(buf + 8);
	owd = (int64_t)(rx_real - tx_real);
	account_seq(get_be64(buf));
	cur.datagrams++;
	cur.ip_bytes += len + overhead;
	if (!cur.owd_n || owd < cur.owd_min)
		cur.owd_min = owd;
	if (!cur.owd_n || owd > cur.owd_max)
		cur.owd_max = owd;
	cur.owd_n++;
	cur.owd_sum += (double)owd;
}

/* Reads what is queued, up to `max` datagrams. Returns how many were read, or -1 on an error. */
static long read_queued(int fd, long max)
{
	long done = 0;

	while (done < max) {
		uint64_t mono, real, now_rel;
		int i, n;

		for (i = 0; i < BATCH; i++) {
			msgs[i].msg_hdr.msg_name = &addrs[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(addrs[i]);
			msgs[i].msg_hdr.msg_iov = &iovs[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			msgs[i].msg_hdr.msg_control = ctrls[i].b;
			msgs[i].msg_hdr.msg_controllen = sizeof(ctrls[i].b);
			msgs[i].msg_hdr.msg_flags = 0;
			iovs[i].iov_base = bufs[i];
			iovs[i].iov_len = PEEK_LEN;
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return done;
			if (errno == EINTR)
				continue;
			log_error("recvmmsg: %s", strerror(errno));
			return -1;
		}
		/* Both clocks read together: the offset that maps receive stamps onto the interval grid. */
		mono = now_ns(CLOCK_MONOTONIC);
		real = now_ns(CLOCK_REALTIME);
		now_rel = mono - t0_mono;
		for (i = 0; i < n; i++)
			handle_datagram(&msgs[i].msg_hdr, msgs[i].msg_len, (int64_t)(real - mono), now_rel);
		done += n;
		if (n < BATCH)
			return done;
	}
	return done;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --port PORT [OPTIONS]\n"
		"Receive lfn-udpgen datagrams on a UDP port and print one report line per interval on stdout.\n"
		"The header line is written once the socket is bound, so it can serve as the ready signal.\n"
		"\n"
		"Options:\n"
		"  --port PORT          UDP port to bind, 1..65535\n"
		"  --bind ADDR          local numeric IPv4 or IPv6 address (default 0.0.0.0, all IPv4)\n"
		"  --duration SECONDS   run time, fractions allowed; 0 = until SIGTERM/SIGINT (default 0)\n"
		"  --report HZ          report intervals per second, 1..100 (default 10)\n"
		"  --help               this text\n"
		"  --version            print version\n"
		"\n"
		"The sink follows one sender: the source address and port of the first datagram. Datagrams from\n"
		"any other source, or shorter than 16 bytes, are counted as ignored and otherwise left out.\n"
		"Byte counts are at the IP layer, like lfn-udpgen's rates: UDP payload + 28 bytes (IPv4) or\n"
		"+ 48 bytes (IPv6) per datagram.\n"
		"\n"
		"TSV output (v%d): a '# " PROG "' comment line with the parameters and the start time, a\n"
		"'#tick...' line naming the columns, then one line per interval. Interval k covers\n"
		"[start + k/HZ, start + (k+1)/HZ) on CLOCK_MONOTONIC; the last one ends at the stop. A datagram\n"
		"belongs to the interval of its kernel receive timestamp. Columns:\n"
		"  tick          interval number from 0\n"
		"  ts_ns         CLOCK_REALTIME at the interval's start, ns since the epoch\n"
		"  mono_ns       CLOCK_MONOTONIC at the interval's start, ns\n"
		"  interval_ns   length of the interval, ns (1e9/HZ except for the last)\n"
		"  datagrams     datagrams received (duplicates included)\n"
		"  ip_bytes      their bytes at the IP layer\n"
		"  lost          sequence numbers skipped over in this interval (a gap, counted when it is seen;\n"
		"                numbers before the first datagram received count too, as the generator starts at 0)\n"
		"  reordered     datagrams that arrived after a higher sequence number (each fills a gap counted\n"
		"                as lost, possibly in an earlier interval)\n"
		"  duplicate     datagrams whose sequence number had already arrived\n"
		"  owd_min_ns    one-way delay, minimum / mean / maximum over the interval's datagrams, ns:\n"
		"  owd_mean_ns   kernel receive time minus the sender's CLOCK_REALTIME stamp; '-' when nothing\n"
		"  owd_max_ns    arrived. Meaningful when sender and sink share a clock (same machine).\n"
		"  sock_drops    datagrams the kernel dropped because the receive buffer was full (SO_RXQ_OVFL;\n"
		"                seen with the next datagram that does arrive)\n"
		"The last line is the summary (tab-separated key=value):\n"
		"  #end reason=duration|signal|error received=N ip_bytes=N lost=N reordered=N duplicate=N\n"
		"       ignored=N sock_drops=N first_seq=N max_seq=N owd_min_ns=N owd_mean_ns=N owd_max_ns=N\n"
		"       elapsed_ns=N cpu_ns=N\n"
		"Here lost = gaps never filled (datagrams missing below max_seq); datagrams sent after the last\n"
		"one received are invisible to the sink: compare with the generator's sent count. first_seq,\n"
		"max_seq and the delays are '-' when nothing arrived. cpu_ns = CPU time used (user + system).\n"
		"\n"
		"Exit status: 0 after duration or SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage.\n",
		FORMAT_VERSION);
}

static int parse_args(int argc, char **argv)
{
	enum { OPT_PORT = 256, OPT_BIND, OPT_DURATION, OPT_REPORT, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, OPT_PORT },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *bind_addr = "0.0.0.0";
	uint64_t port = 0;
	int c;

	opt.hz = 10;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PORT:
			if (parse_u64(optarg, 1, 65535, &port))
				return lfn_bad_value("--port must be an integer 1..65535", optarg);
			break;
		case OPT_BIND:
			bind_addr = optarg;
			break;
		case OPT_DURATION:
			if (udp_opt_duration(optarg, &opt.duration_s, &opt.duration_ns))
				return -1;
			break;
		case OPT_REPORT:
			if (udp_opt_report(optarg, &opt.hz))
				return -1;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	if (!port) {
		fprintf(stderr, PROG ": --port is required\n");
		return -1;
	}
	if (parse_addr(bind_addr, (uint16_t)port, &opt.bind, &opt.bind_len))
		return lfn_bad_value("--bind must be a numeric IPv4 or IPv6 address", bind_addr);
	format_addr(&opt.bind, opt.bind_text, sizeof(opt.bind_text));
	return 0;
}

static int open_socket(int *rcvbuf)
{
	const int one = 1, want = RCVBUF_BYTES;
	socklen_t len = sizeof(*rcvbuf);
	int fd = socket(opt.bind.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (opt.bind.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* Room for bursts while the CPU is busy elsewhere; FORCE passes net.core.rmem_max as root. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, &len))
		*rcvbuf = -1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one))) {
		fprintf(stderr, PROG ": setsockopt: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&opt.bind, opt.bind_len)) {
		fprintf(stderr, PROG ": bind %s: %s\n", opt.bind_text, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *reason = "signal";
	sigset_t block, unblocked;
	struct pollfd pfd;
	uint64_t rel = 0;
	int fd, rcvbuf, status = 0;

	lfn_prog = PROG;
	if (parse_args(argc, argv))
		return 2;
	overhead = opt.bind.ss_family == AF_INET6 ? LFNUDP_OVERHEAD_V6 : LFNUDP_OVERHEAD_V4;

	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));

	/*
	 * SIGTERM/SIGINT stay blocked except inside ppoll, so a stop request can
	 * neither be missed between a check and the wait nor interrupt a write.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigdelset(&unblocked, SIGTERM);
	sigdelset(&unblocked, SIGINT);
	lfn_catch_stop_signals(LFN_SIG_IGNORE_PIPE);

	fd = open_socket(&rcvbuf);
	if (fd < 0)
		return 1;

	t0_mono = now_ns(CLOCK_MONOTONIC);
	t0_real = now_ns(CLOCK_REALTIME);
	end_rel = opt.duration_ns ? opt.duration_ns : NEVER_NS;
	print_header(rcvbuf);
	if (fflush(stdout)) {
		fprintf(stderr, PROG ": stdout: %s\n", strerror(errno));
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;

	for (;;) {
		uint64_t deadline;
		struct timespec ts;
		int rc;

		rel = now_ns(CLOCK_MONOTONIC) - t0_mono;
		if (lfn_stop_signal || rel >= end_rel || boundary_ns(tick + 1) <= rel) {
			/* Everything that arrived by now is in the queue: read it before writing intervals. */
			if (read_queued(fd, MAX_DRAIN) < 0) {
				reason = "error";
				status = 1;
				break;
			}
			rel = now_ns(CLOCK_MONOTONIC) - t0_mono;
			if (rel > end_rel)
				rel = end_rel;
			emit_through(rel);
			if (stdout_failed) {
				reason = "error";
				status = 1;
				break;
			}
			if (lfn_stop_signal || rel >= end_rel) {
				if (rel > boundary_ns(tick))
					emit_interval(rel);
				reason = lfn_stop_signal ? "signal" : "duration";
				break;
			}
			continue;
		}
		deadline = boundary_ns(tick + 1) < end_rel ? boundary_ns(tick + 1) : end_rel;
		ts = ns_to_timespec(deadline - rel);
		rc = ppoll(&pfd, 1, &ts, &unblocked);
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": ppoll: %s\n", strerror(errno));
			reason = "error";
			status = 1;
			break;
		}
		if (rc > 0 && read_queued(fd, MAX_DRAIN) < 0) {
			reason = "error";
			status = 1;
			break;
		}
	}

	if (!stdout_failed) {
		print_end(stdout, reason, rel);
		if (fflush(stdout))
			stdout_failed = 1;
	}
	if (stdout_failed) {
		fprintf(stderr, PROG ": writing stdout failed: %s\n", strerror(errno));
		print_end(stderr, "error", rel);
		status = 1;
	}
	close(fd);
	return status;
}
