// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-udt: bulk transfer over UDT4 (Debian's libudt, linked statically), the
 * UDP-based transport with its own rate and window control.
 *
 * The receiver listens, the sender connects; one UDT stream carries a
 * 24-byte hello (magic, version, payload size; big-endian), the payload, and
 * a 44-byte trailer with the sender's byte count and SHA-256. The receiver
 * answers with its own, computed over what it received, in order.
 *
 * UDT's UDP socket is created here and handed over with UDT::bind2, so
 * --sockbuf can force its buffers past net.core.[rw]mem_max (UDT itself can
 * only ask for what the limits allow). The program is single-threaded
 * (UDT runs its own threads): send/recv calls time out after a few ms so
 * progress rows, with UDT::perfmon's rate, RTT and loss counters, are
 * written on time.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <set>

#include <udt.h>

#include "xfer.h"

#define PROG "lfn-udt"
#define DEFAULT_PORT 5330
#define MAGIC 0x4c465544u     /* "LFUD" */
#define FIN_MAGIC 0x4c464649u /* "LFFI" */
#define PROTO_VERSION 1u
#define HELLO_LEN 24u
#define FIN_LEN 44u
#define IO_SLICE (1u << 20)
#define DEFAULT_SOCKBUF (8 << 20)
#define UDT_ETIMEOUT 6003 /* CUDTException::ETIMEOUT */

/*
 * Columns after the six common ones; all from UDT::perfmon, read (and its
 * interval counters cleared) at each row.
 */
#define ROW_COLUMNS(X)                                                                              \
	X(rtt_us, "UDT's smoothed RTT, us")                                                          \
	X(bandwidth_bps, "UDT's estimate of the link capacity, bits/s")                              \
	X(send_rate_bps, "UDT's sending rate over the interval, bits/s")                             \
	X(recv_rate_bps, "UDT's receiving rate over the interval, bits/s")                           \
	X(pkts_sent, "data packets sent in the interval, incl. retransmissions")                      \
	X(pkts_recv, "data packets received in the interval")                                         \
	X(snd_loss, "packets reported lost to this side as sender in the interval (from NAKs)")       \
	X(rcv_loss, "packets this side as receiver found missing in the interval")                   \
	X(retrans, "packets retransmitted in the interval")                                           \
	X(cwnd_pkts, "congestion window, packets")                                                    \
	X(flow_window_pkts, "flow window, packets")                                                   \
	X(flight_pkts, "packets in flight")                                                           \
	X(snd_period_ns, "inter-packet sending period set by rate control, ns")                       \
	X(snd_buf_avail, "free bytes in UDT's send buffer")                                           \
	X(rcv_buf_avail, "free bytes in UDT's receive buffer")

struct options {
	struct common_opts c;
	int mss;
	int fc;
	int udt_buf;
	int sockbuf;
	int64_t max_rate_bps;
};

static struct options opt;
static struct ticker tick;
static struct hasher hash;
static UDTSOCKET conn = UDT::INVALID_SOCK;
static uint64_t io_bytes, t_start;

/*
 * UDT resolves an address itself only when a socket is bound without one
 * (CChannel::open(NULL)); here every socket gets its UDP socket through
 * UDT::bind2, so that path is never taken. These stand-ins keep glibc's
 * resolver, which needs NSS shared objects at run time, out of the static
 * binary: any call fails as an unresolvable name would.
 */
extern "C" int getaddrinfo(const char *, const char *, const struct addrinfo *, struct addrinfo **res)
{
	*res = NULL;
	return EAI_FAIL;
}

extern "C" void freeaddrinfo(struct addrinfo *) {}

/* ---- helpers ---- */

static void udt_fail(const char *what)
{
	lfn_err("%s: %s", what, UDT::getlasterror().getErrorMessage());
}

static int io_timeout_ms(void)
{
	int ms = opt.c.report_hz ? (int)(500 / opt.c.report_hz) : 100;

	return ms < 1 ? 1 : ms > 100 ? 100 : ms;
}

static int set_opt(UDTSOCKET u, UDT::SOCKOPT name, const void *v, int len, const char *what)
{
	if (UDT::setsockopt(u, 0, name, v, len) == UDT::ERROR) {
		udt_fail(what);
		return -1;
	}
	return 0;
}

/* Options that must be set before bind/connect/listen (the flow window before the buffers). */
static int apply_options(UDTSOCKET u)
{
	struct linger lg = { 1, 10 };

	if (opt.mss && set_opt(u, UDT_MSS, &opt.mss, sizeof(opt.mss), "UDT_MSS"))
		return -1;
	if (opt.fc && set_opt(u, UDT_FC, &opt.fc, sizeof(opt.fc), "UDT_FC"))
		return -1;
	if (opt.udt_buf && (set_opt(u, UDT_SNDBUF, &opt.udt_buf, sizeof(opt.udt_buf), "UDT_SNDBUF") ||
			    set_opt(u, UDT_RCVBUF, &opt.udt_buf, sizeof(opt.udt_buf), "UDT_RCVBUF")))
		return -1;
	if (opt.sockbuf && (set_opt(u, UDP_SNDBUF, &opt.sockbuf, sizeof(opt.sockbuf), "UDP_SNDBUF") ||
			    set_opt(u, UDP_RCVBUF, &opt.sockbuf, sizeof(opt.sockbuf), "UDP_RCVBUF")))
		return -1;
	if (opt.max_rate_bps > 0) {
		int64_t bytes_per_s = opt.max_rate_bps / 8;

		if (set_opt(u, UDT_MAXBW, &bytes_per_s, sizeof(bytes_per_s), "UDT_MAXBW"))
			return -1;
	}
	return set_opt(u, UDT_LINGER, &lg, sizeof(lg), "UDT_LINGER");
}

static int set_timeouts(UDTSOCKET u)
{
	int ms = io_timeout_ms();

	return set_opt(u, UDT_SNDTIMEO, &ms, sizeof(ms), "UDT_SNDTIMEO") ||
			       set_opt(u, UDT_RCVTIMEO, &ms, sizeof(ms), "UDT_RCVTIMEO")
		       ? -1
		       : 0;
}

/*
 * Creates the UDP socket UDT will use, bound to ss, hands it to u, then
 * forces its buffers (UDT has just set them, capped by the sysctl limits).
 */
static int attach_udp(UDTSOCKET u, const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (const struct sockaddr *)ss, len)) {
		lfn_err("UDP socket: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (UDT::bind2(u, fd) == UDT::ERROR) {
		udt_fail("UDT::bind2");
		close(fd);
		return -1;
	}
	set_sockbuf(fd, opt.sockbuf);
	return fd;
}

static int sock_bufsize(int fd, int which)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (fd >= 0)
		getsockopt(fd, SOL_SOCKET, which, &v, &l);
	return v;
}

/* ---- output ---- */

static void print_columns(void)
{
	fputs("#tick\tmono_ns\telapsed_ns\tbytes\tinterval_bps\tavg_bps", stdout);
#define HDR_COL(name, doc) fputs("\t" #name, stdout);
	ROW_COLUMNS(HDR_COL)
#undef HDR_COL
	putchar('\n');
}

static uint64_t nonneg(double v)
{
	return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

/*
 * The last perfmon reading that worked. Once the peer has closed, perfmon fails on the broken
 * socket; the closing totals then come from here instead of reading as zeros.
 */
static UDT::TRACEINFO last_pm;
static int have_last_pm;

static void remember_perfmon(void)
{
	UDT::TRACEINFO pm;

	if (conn != UDT::INVALID_SOCK && UDT::perfmon(conn, &pm, false) != UDT::ERROR) {
		last_pm = pm;
		have_last_pm = 1;
	}
}

static void maybe_row(uint64_t now)
{
	struct tick_row r;
	UDT::TRACEINFO pm;

	if (!ticker_due(&tick, now, io_bytes, &r))
		return;
	memset(&pm, 0, sizeof(pm));
	if (conn != UDT::INVALID_SOCK)
		UDT::perfmon(conn, &pm, true);
	print_tick_prefix(&r);
	printf("\t%llu\t%llu\t%llu\t%llu\t%lld\t%lld\t%d\t%d\t%d\t%d\t%d\t%d\t%llu\t%d\t%d\n",
	       (unsigned long long)nonneg(pm.msRTT * 1000), (unsigned long long)nonneg(pm.mbpsBandwidth * 1e6),
	       (unsigned long long)nonneg(pm.mbpsSendRate * 1e6), (unsigned long long)nonneg(pm.mbpsRecvRate * 1e6),
	       (long long)pm.pktSent, (long long)pm.pktRecv, pm.pktSndLoss, pm.pktRcvLoss, pm.pktRetrans,
	       pm.pktCongestionWindow, pm.pktFlowWindow, pm.pktFlightSize,
	       (unsigned long long)nonneg(pm.usPktSndPeriod * 1000), pm.byteAvailSndBuf, pm.byteAvailRcvBuf);
	fflush(stdout);
}

static void print_end(const char *reason, uint64_t elapsed, const char *sha, const char *peer_sha, uint64_t peer_bytes,
		      uint64_t bytes, int udp_fd)
{
	UDT::TRACEINFO pm;

	memset(&pm, 0, sizeof(pm));
	if (conn == UDT::INVALID_SOCK || UDT::perfmon(conn, &pm, false) == UDT::ERROR) {
		if (have_last_pm)
			pm = last_pm;
	}
	fputs("#end", stdout);
	kv_str("reason", reason);
	kv_str("role", opt.c.role == ROLE_SEND ? "send" : "recv");
	kv_u64("bytes", bytes);
	kv_u64("elapsed_ns", elapsed);
	kv_u64("avg_bps", rate_bps(bytes, elapsed));
	kv_str("sha256", sha ? sha : "-");
	kv_str("peer_sha256", peer_sha ? peer_sha : "-");
	kv_u64("peer_bytes", peer_bytes);
	kv_str("match", sha && peer_sha ? (!strcmp(sha, peer_sha) && peer_bytes == bytes ? "1" : "0") : "-");
	kv_u64("pkts_sent", (uint64_t)(pm.pktSentTotal > 0 ? pm.pktSentTotal : 0));
	kv_u64("pkts_recv", (uint64_t)(pm.pktRecvTotal > 0 ? pm.pktRecvTotal : 0));
	kv_u64("snd_loss", (uint64_t)(pm.pktSndLossTotal > 0 ? pm.pktSndLossTotal : 0));
	kv_u64("rcv_loss", (uint64_t)(pm.pktRcvLossTotal > 0 ? pm.pktRcvLossTotal : 0));
	kv_u64("retrans", (uint64_t)(pm.pktRetransTotal > 0 ? pm.pktRetransTotal : 0));
	kv_u64("acks_sent", (uint64_t)(pm.pktSentACKTotal > 0 ? pm.pktSentACKTotal : 0));
	kv_u64("acks_recv", (uint64_t)(pm.pktRecvACKTotal > 0 ? pm.pktRecvACKTotal : 0));
	kv_u64("naks_sent", (uint64_t)(pm.pktSentNAKTotal > 0 ? pm.pktSentNAKTotal : 0));
	kv_u64("naks_recv", (uint64_t)(pm.pktRecvNAKTotal > 0 ? pm.pktRecvNAKTotal : 0));
	kv_u64("rtt_us", nonneg(pm.msRTT * 1000));
	kv_u64("sockbuf", (uint64_t)sock_bufsize(udp_fd, opt.c.role == ROLE_SEND ? SO_SNDBUF : SO_RCVBUF));
	kv_u64("rows", tick.rows);
	kv_u64("skipped_rows", tick.skipped);
	kv_u64("hash_ns", hash.cpu_ns);
	kv_str("sha256_impl", sha256_impl());
	kv_rusage();
	putchar('\n');
}

/* ---- stream I/O with rows ---- */

static int timed_out(int n)
{
	return n == 0 || (n == UDT::ERROR && UDT::getlasterror().getErrorCode() == UDT_ETIMEOUT);
}

/*
 * Moves len bytes through conn, writing rows meanwhile. count adds the bytes
 * to the progress counter (payload, not framing). Gives up after
 * --timeout without progress.
 */
static int xfer_full(char *buf, size_t len, int sending, int count, const char *what)
{
	uint64_t idle_since = now_ns(CLOCK_MONOTONIC);

	while (len) {
		int want = len > IO_SLICE ? (int)IO_SLICE : (int)len;
		int n = sending ? UDT::send(conn, buf, want, 0) : UDT::recv(conn, buf, want, 0);
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			if (count)
				io_bytes += (uint64_t)n;
			idle_since = now;
		} else if (!timed_out(n)) {
			udt_fail(what);
			return -1;
		}
		maybe_row(now);
		if (lfn_stop_signal)
			return -1;
		if (opt.c.timeout_ns && now - idle_since >= opt.c.timeout_ns) {
			lfn_err("%s: no progress for %.1f s", what, (double)opt.c.timeout_ns / 1e9);
			xfer_timed_out = 1;
			return -1;
		}
	}
	return 0;
}

/*
 * Waits until UDT has sent, and had acknowledged, all it holds in its send buffer (or --timeout,
 * else 10 s, passes), writing rows meanwhile. UDT::send returns once data is buffered, and the
 * receiver may close right after the digest exchange, after which perfmon has nothing to read: the
 * sender's totals are taken here, or they miss the packets still buffered.
 */
static void wait_drained(void)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + (opt.c.timeout_ns ? opt.c.timeout_ns : 10000000000ULL);
	int32_t pending = 0;
	int len = (int)sizeof(pending);

	while (UDT::getsockopt(conn, 0, UDT_SNDDATA, &pending, &len) != UDT::ERROR && pending > 0) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		maybe_row(now);
		if (lfn_stop_signal || now >= deadline)
			return;
		usleep(1000);
	}
}

/* ---- sender ---- */

static int run_send(void)
{
	static char buf[IO_SLICE];
	struct source src;
	struct sockaddr_storage ss, any;
	socklen_t slen, alen;
	uint8_t msg[FIN_LEN];
	uint64_t off = 0, elapsed = 0, peer_bytes = 0;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1];
	const char *reason = "error";
	int status = 1, have_sha = 0, have_peer = 0, udp = -1;
	UDTSOCKET u;

	if (source_open(&src, opt.c.file, opt.c.bytes, opt.c.seed))
		return 1;
	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));
	printf("# " PROG " v%d role=send connect=%s port=%u bytes=%llu", XFER_FORMAT_VERSION, opt.c.connect, opt.c.port,
	       (unsigned long long)src.size);
	if (opt.c.file)
		printf(" source=file");
	else
		printf(" source=seed:%llu", (unsigned long long)opt.c.seed);
	printf(" mss=%d fc=%d udt_buf=%d sockbuf=%d max_rate_bps=%lld report_hz=%u\n", opt.mss, opt.fc, opt.udt_buf,
	       opt.sockbuf, (long long)opt.max_rate_bps, opt.c.report_hz);
	print_columns();
	if (out_flush())
		return 1;

	parse_addr(opt.c.connect, opt.c.port, &ss, &slen);
	parse_addr(ss.ss_family == AF_INET6 ? "::" : "0.0.0.0", 0, &any, &alen);
	UDT::startup();
	u = UDT::socket(ss.ss_family, SOCK_STREAM, 0);
	if (u == UDT::INVALID_SOCK) {
		udt_fail("UDT::socket");
		goto out;
	}
	if (apply_options(u))
		goto out;
	udp = attach_udp(u, &any, alen);
	if (udp < 0)
		goto out;
	if (UDT::connect(u, (struct sockaddr *)&ss, (int)slen) == UDT::ERROR) {
		char what[96];

		snprintf(what, sizeof(what), "connect %s port %u", opt.c.connect, opt.c.port);
		udt_fail(what);
		goto out;
	}
	conn = u;
	if (set_timeouts(u))
		goto out;
	put_be32(msg, MAGIC);
	put_be32(msg + 4, PROTO_VERSION);
	put_be64(msg + 8, src.size);
	put_be64(msg + 16, 0);
	if (xfer_full((char *)msg, HELLO_LEN, 1, 0, "sending the hello"))
		goto out;

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	while (off < src.size) {
		size_t n = src.size - off < IO_SLICE ? (size_t)(src.size - off) : IO_SLICE;

		if (source_read(&src, off, buf, n))
			goto out;
		hasher_update(&hash, buf, n);
		if (xfer_full(buf, n, 1, 1, "sending"))
			goto out;
		off += n;
	}
	hasher_final(&hash, msg + 12, sha);
	have_sha = 1;
	put_be32(msg, FIN_MAGIC);
	put_be64(msg + 4, src.size);
	wait_drained();
	remember_perfmon(); /* before the digest exchange, after which the receiver may close */
	if (xfer_full((char *)msg, FIN_LEN, 1, 0, "sending the digest") ||
	    xfer_full((char *)msg, FIN_LEN, 0, 0, "waiting for the receiver's digest"))
		goto out;
	elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	if (get_be32(msg) != FIN_MAGIC) {
		lfn_err("protocol error: bad digest message from the receiver");
		goto out;
	}
	peer_bytes = get_be64(msg + 4);
	sha256_hex(msg + 12, peer_sha);
	have_peer = 1;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != src.size ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes, io_bytes, udp);
	if (out_flush())
		status = 1;
	if (u != UDT::INVALID_SOCK)
		UDT::close(u);
	UDT::cleanup();
	return status;
}

/* ---- receiver ---- */

static int wait_accept(UDTSOCKET ls)
{
	uint64_t deadline = opt.c.timeout_ns ? now_ns(CLOCK_MONOTONIC) + opt.c.timeout_ns : 0;
	int eid = UDT::epoll_create(), ev = UDT_EPOLL_IN, rc = -1;

	if (eid < 0 || UDT::epoll_add_usock(eid, ls, &ev) == UDT::ERROR) {
		udt_fail("UDT::epoll");
		return -1;
	}
	while (!lfn_stop_signal) {
		std::set<UDTSOCKET> rd;
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		if (deadline && now >= deadline) {
			lfn_err("no sender connected within %.1f s", (double)opt.c.timeout_ns / 1e9);
			xfer_timed_out = 1;
			break;
		}
		/* Short waits so a signal is noticed promptly. */
		if (UDT::epoll_wait(eid, &rd, NULL, 100) > 0 && !rd.empty()) {
			rc = 0;
			break;
		}
	}
	UDT::epoll_release(eid);
	return rc;
}

static int run_recv(void)
{
	static char buf[IO_SLICE];
	struct sockaddr_storage ss;
	socklen_t slen;
	uint8_t msg[FIN_LEN];
	uint64_t total = 0, elapsed = 0, peer_bytes = 0;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1], addr[64];
	const char *reason = "error";
	int status = 1, have_sha = 0, have_peer = 0, udp = -1, alen;
	unsigned port;
	UDTSOCKET ls;

	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));
	parse_addr(opt.c.bind ? opt.c.bind : "0.0.0.0", opt.c.port, &ss, &slen);
	UDT::startup();
	ls = UDT::socket(ss.ss_family, SOCK_STREAM, 0);
	if (ls == UDT::INVALID_SOCK) {
		udt_fail("UDT::socket");
		goto out;
	}
	if (apply_options(ls))
		goto out;
	udp = attach_udp(ls, &ss, slen);
	if (udp < 0)
		goto out;
	if (UDT::listen(ls, 1) == UDT::ERROR) {
		udt_fail("UDT::listen");
		goto out;
	}
	alen = (int)sizeof(ss);
	UDT::getsockname(ls, (struct sockaddr *)&ss, &alen);
	addr_to_str((struct sockaddr *)&ss, addr, sizeof(addr), &port);
	printf("# " PROG " v%d role=recv bind=%s port=%u mss=%d fc=%d udt_buf=%d sockbuf=%d report_hz=%u\n",
	       XFER_FORMAT_VERSION, addr, port, opt.mss, opt.fc, opt.udt_buf, opt.sockbuf, opt.c.report_hz);
	print_columns();
	if (out_flush())
		goto out;

	if (wait_accept(ls))
		goto out;
	conn = UDT::accept(ls, NULL, NULL);
	if (conn == UDT::INVALID_SOCK) {
		udt_fail("UDT::accept");
		goto out;
	}
	if (set_timeouts(conn) || xfer_full((char *)msg, HELLO_LEN, 0, 0, "reading the hello"))
		goto out;
	if (get_be32(msg) != MAGIC || get_be32(msg + 4) != PROTO_VERSION || !get_be64(msg + 8)) {
		lfn_err("protocol error: not an " PROG " v%u sender", PROTO_VERSION);
		goto out;
	}
	total = get_be64(msg + 8);

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	while (io_bytes < total) {
		size_t n = total - io_bytes < IO_SLICE ? (size_t)(total - io_bytes) : IO_SLICE;

		/* Slice by slice, in order, as it arrives. */
		if (xfer_full(buf, n, 0, 1, "receiving"))
			goto out;
		hasher_update(&hash, buf, n);
	}
	elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	maybe_row(now_ns(CLOCK_MONOTONIC));
	remember_perfmon(); /* before the digest exchange, after which the sender may close */
	if (xfer_full((char *)msg, FIN_LEN, 0, 0, "reading the sender's digest"))
		goto out;
	if (get_be32(msg) != FIN_MAGIC) {
		lfn_err("protocol error: bad digest message from the sender");
		goto out;
	}
	peer_bytes = get_be64(msg + 4);
	sha256_hex(msg + 12, peer_sha);
	have_peer = 1;
	hasher_final(&hash, msg + 12, sha);
	have_sha = 1;
	put_be64(msg + 4, io_bytes);
	if (xfer_full((char *)msg, FIN_LEN, 1, 0, "sending the digest"))
		goto out;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != io_bytes ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes, io_bytes, udp);
	if (out_flush())
		status = 1;
	if (conn != UDT::INVALID_SOCK)
		UDT::close(conn);
	if (ls != UDT::INVALID_SOCK)
		UDT::close(ls);
	UDT::cleanup();
	return status;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --recv [--bind ADDR] [--port P] [OPTIONS]\n"
		"       " PROG " --send --connect ADDR [--port P] (--bytes N | --file PATH) [OPTIONS]\n"
		"       " PROG " --digest (--bytes N [--seed S] | --file PATH)\n"
		"Bulk transfer over UDT4 (UDP-based Data Transfer; libudt, statically linked). Both sides print\n"
		"the SHA-256 of the payload and whether the peer's matches.\n"
		"\n");
	common_usage(f, DEFAULT_PORT);
	fprintf(f,
		"UDT options (each side sets its own; not given = UDT's default, shown as 0 in the header):\n"
		"  --mss BYTES         UDT_MSS, packet size incl. UDT/UDP/IP headers, 76..65536 (UDT: 1500)\n"
		"  --fc PACKETS        UDT_FC, maximum flow window, 32..1000000 (UDT: 25600)\n"
		"  --udt-buf BYTES     UDT_SNDBUF and UDT_RCVBUF, UDT's own buffers (UDT: 10240000)\n"
		"  --sockbuf BYTES     buffers of the UDP socket under UDT, forced past net.core.[rw]mem_max\n"
		"                      as root (default %d; 0 = what UDT asks for, 1024000, within the limits)\n"
		"  --max-rate BPS      (send) UDT_MAXBW cap, bits per second; suffixes k M G (default: none)\n"
		"\n"
		"Output (v%d), on stdout: a '# " PROG " v%d role=...' header with the settings (the receiver's\n"
		"has the actual port), a '#tick...' line naming the columns, then tab-separated progress rows,\n"
		"due at start + k/HZ on CLOCK_MONOTONIC from the start of the transfer (after the hello):\n"
		"  tick                row slot k (a gap = slots skipped while busy)\n"
		"  mono_ns             CLOCK_MONOTONIC when written, ns\n"
		"  elapsed_ns          since the start of the transfer, ns\n"
		"  bytes               payload bytes handed to UDT::send (send; runs ahead of delivery by up to\n"
		"                      UDT's send buffer) / received in order (recv)\n"
		"  interval_bps        bits/s of bytes since the previous row (0 in the first row)\n"
		"  avg_bps             bits/s of bytes since the start\n",
		DEFAULT_SOCKBUF, XFER_FORMAT_VERSION, XFER_FORMAT_VERSION);
#define HELP_COL(name, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	ROW_COLUMNS(HELP_COL)
#undef HELP_COL
	fprintf(f,
		"Last line (tab-separated key=value):\n"
		"  #end reason=done|error|timeout|signal role=send|recv bytes=N elapsed_ns=N avg_bps=N\n"
		"       sha256=HEX|- peer_sha256=HEX|- peer_bytes=N match=1|0|- pkts_sent=N pkts_recv=N\n"
		"       snd_loss=N rcv_loss=N retrans=N acks_sent=N acks_recv=N naks_sent=N naks_recv=N\n"
		"       rtt_us=N sockbuf=N rows=N skipped_rows=N hash_ns=N sha256_impl=shani|c user_ns=N sys_ns=N\n"
		"  bytes = payload bytes sent (send) / received and hashed (recv); elapsed_ns = start to the\n"
		"  receiver's digest arriving (send) / to the last payload byte (recv); packet counters are\n"
		"  UDT::perfmon totals for the connection; sockbuf = actual UDP buffer; hash_ns = CPU time in\n"
		"  SHA-256; user_ns/sys_ns = CPU time of the process incl. UDT's threads (getrusage).\n"
		"\n"
		"Exit status: 0 transfer verified, 3 transfer completed but the digests differ, 1 runtime\n"
		"error, timeout or signal, 2 bad usage.\n");
}

static int parse_args(int argc, char **argv)
{
	enum { OPT_MSS = OPT_PROGRAM, OPT_FC, OPT_UDT_BUF, OPT_SOCKBUF, OPT_MAX_RATE };
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "mss", required_argument, NULL, OPT_MSS },
		{ "fc", required_argument, NULL, OPT_FC },
		{ "udt-buf", required_argument, NULL, OPT_UDT_BUF },
		{ "sockbuf", required_argument, NULL, OPT_SOCKBUF },
		{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	common_defaults(&opt.c, DEFAULT_PORT);
	opt.sockbuf = DEFAULT_SOCKBUF;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint64_t v;
		int r = common_option(&opt.c, c, optarg);

		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_MSS:
			if (parse_u64(optarg, 76, 65536, &v)) {
				fprintf(stderr, PROG ": --mss must be 76..65536 bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.mss = (int)v;
			break;
		case OPT_FC:
			if (parse_u64(optarg, 32, 1000000, &v)) {
				fprintf(stderr, PROG ": --fc must be 32..1000000 packets (got '%s')\n", optarg);
				return -1;
			}
			opt.fc = (int)v;
			break;
		case OPT_UDT_BUF:
			if (parse_scaled(optarg, 65536, 1u << 30, &v)) {
				fprintf(stderr, PROG ": --udt-buf must be 64Ki..1Gi bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.udt_buf = (int)v;
			break;
		case OPT_SOCKBUF:
			if (parse_scaled(optarg, 0, 1u << 30, &v)) {
				fprintf(stderr, PROG ": --sockbuf must be 0..1Gi bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.sockbuf = (int)v;
			break;
		case OPT_MAX_RATE:
			if (parse_scaled(optarg, 8000, 100000000000ull, &v)) {
				fprintf(stderr, PROG ": --max-rate must be 8k..100G bits per second (got '%s')\n", optarg);
				return -1;
			}
			opt.max_rate_bps = (int64_t)v;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, XFER_FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	if (common_check(&opt.c))
		return -1;
	if (opt.c.role == ROLE_RECV && opt.max_rate_bps) {
		fprintf(stderr, PROG ": --max-rate is for --send\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	return xfer_main(argc, argv, PROG, &opt.c, parse_args, 0, run_send, run_recv);
}
