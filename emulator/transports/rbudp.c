// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-rbudp: Reliable Blast UDP bulk transfer (sender and receiver).
 *
 * The payload is cut into chunks. For each chunk the sender blasts every
 * datagram over UDP at a fixed, paced rate (--rate: the protocol has no
 * congestion control, the rate is the user's guess of the bottleneck), then
 * says so on a TCP control connection. The receiver answers on the same
 * connection with a bitmap of the datagrams it still lacks; the sender blasts
 * just those, and so on, round after round, until nothing is missing. Then
 * the next chunk. At the end both sides exchange the SHA-256 of the payload
 * (sender: as read; receiver: as reassembled, in order) and report whether
 * they match.
 *
 * The receiver listens (TCP for control and UDP for data, same port); the
 * sender connects. One transfer per run.
 *
 * Control messages are a big-endian header (type u32, body length u32) and
 * a body; data datagrams carry a 16-byte big-endian header (session, chunk,
 * datagram index within the chunk, round) and up to --datagram - 16 payload
 * bytes. Bitmaps are LSB-first: datagram i is bit i % 8 of byte i / 8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "xfer.h"

#define PROG "lfn-rbudp"
#define DEFAULT_PORT 5310
#define MAGIC 0x4c465242u /* "LFRB" */
#define PROTO_VERSION 1u

#define DGRAM_HDR 16u
#define DEFAULT_DGRAM 1472u /* fills a 1500-byte IPv4 MTU */
#define MIN_DGRAM 64u
#define MAX_DGRAM 65507u
#define DEFAULT_CHUNK (64ull << 20)
#define MAX_CHUNK (4ull << 30)
#define DEFAULT_SOCKBUF (8 << 20)
#define RECV_BATCH 64
/* A pacer this far behind schedule restarts the schedule instead of bursting to catch up. */
#define MAX_PACE_LAG_NS 1000000ull
/* Hash at most this much of the in-order prefix before reading the socket again. */
#define HASH_SLICE (256u << 10)

enum ctl_type {
	CTL_HELLO = 1,	   /* S->R: magic version session datagram chunk total rate */
	CTL_HELLO_OK = 2,  /* R->S: magic session rcvbuf */
	CTL_BLAST_END = 3, /* S->R: chunk round sent */
	CTL_REPORT = 4,	   /* R->S: chunk round missing [bitmap if missing > 0] */
	CTL_FIN = 5,	   /* S->R: bytes sha256 */
	CTL_FIN_OK = 6,	   /* R->S: bytes sha256 */
};

#define HELLO_LEN 40u
#define HELLO_OK_LEN 12u
#define BLAST_END_LEN 12u
#define REPORT_HDR_LEN 12u
#define FIN_LEN 40u

/*
 * One TSV progress row per tick after the six common columns. Sender and
 * receiver share the columns; a column that has no meaning for a role is 0.
 */
#define ROW_COLUMNS(X)                                                                                    \
	X(chunk, "chunk being transferred, from 0")                                                        \
	X(round, "round within that chunk, from 1 (0 before the first blast)")                             \
	X(datagrams, "datagrams sent (send) / valid datagrams received incl. duplicates (recv), total")    \
	X(resent, "retransmitted datagrams sent (send) / received (recv), total")                          \
	X(dups, "duplicate datagrams received (recv; 0 for send), total")                                  \
	X(done_bytes, "bytes of chunks the receiver confirmed (send) / received in order and hashed (recv)")

struct options {
	struct common_opts c;
	uint64_t rate_bps;
	unsigned dgram;
	uint64_t chunk;
	int sockbuf;
};

struct stats {
	uint64_t bytes;	    /* send: distinct payload bytes sent; recv: distinct payload bytes received */
	uint64_t done_bytes;
	uint64_t datagrams, resent, dups, stale, bad;
	uint64_t chunks, rounds, max_rounds;
	uint64_t pace_resets, send_drops;
	uint32_t chunk, round;
};

static struct options opt;
static struct stats st;
static struct ticker tick;
static struct hasher hash;
static uint64_t t_start; /* CLOCK_MONOTONIC at the start of the transfer, 0 before */

/* ---- byte order helpers ---- */

static int bit_get(const uint8_t *bm, uint64_t i)
{
	return bm[i / 8] >> (i % 8) & 1;
}

static void bit_set(uint8_t *bm, uint64_t i)
{
	bm[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* ---- control messages ---- */

static int send_msg(int fd, uint32_t type, const uint8_t *body, uint32_t len, const uint8_t *extra,
		    uint32_t extra_len)
{
	uint8_t hdr[8];

	put_be32(hdr, type);
	put_be32(hdr + 4, len + extra_len);
	if (write_full(fd, hdr, sizeof(hdr), opt.c.timeout_ns, "control connection") ||
	    write_full(fd, body, len, opt.c.timeout_ns, "control connection"))
		return -1;
	if (extra_len && write_full(fd, extra, extra_len, opt.c.timeout_ns, "control connection"))
		return -1;
	return 0;
}

/*
 * Reads one message of the expected type whose body is between min and max
 * bytes; returns the body length or -1.
 */
static long recv_msg(int fd, uint32_t type, uint8_t *body, uint32_t min, uint32_t max)
{
	uint8_t hdr[8];
	uint32_t t, len;

	if (read_full(fd, hdr, sizeof(hdr), opt.c.timeout_ns, "control connection"))
		return -1;
	t = get_be32(hdr);
	len = get_be32(hdr + 4);
	if (t != type || len < min || len > max) {
		lfn_err("protocol error: expected message %u, got %u with %u bytes", type, t, len);
		return -1;
	}
	if (read_full(fd, body, len, opt.c.timeout_ns, "control connection"))
		return -1;
	return (long)len;
}

/* ---- output ---- */

static void print_header(const char *addr, unsigned port)
{
	if (opt.c.role == ROLE_SEND) {
		printf("# " PROG " v%d role=send connect=%s port=%u bytes=%llu", XFER_FORMAT_VERSION, addr, port,
		       (unsigned long long)opt.c.bytes);
		if (opt.c.file)
			printf(" source=file");
		else
			printf(" source=seed:%llu", (unsigned long long)opt.c.seed);
		printf(" rate_bps=%llu datagram=%u chunk=%llu sockbuf=%d", (unsigned long long)opt.rate_bps, opt.dgram,
		       (unsigned long long)opt.chunk, opt.sockbuf);
	} else {
		printf("# " PROG " v%d role=recv bind=%s port=%u sockbuf=%d", XFER_FORMAT_VERSION, addr, port,
		       opt.sockbuf);
	}
	printf(" report_hz=%u\n#tick\tmono_ns\telapsed_ns\tbytes\tinterval_bps\tavg_bps", opt.c.report_hz);
#define HDR_COL(name, doc) fputs("\t" #name, stdout);
	ROW_COLUMNS(HDR_COL)
#undef HDR_COL
	putchar('\n');
}

static void maybe_row(uint64_t now)
{
	struct tick_row r;

	if (!ticker_due(&tick, now, st.bytes, &r))
		return;
	print_tick_prefix(&r);
	printf("\t%u\t%u\t%llu\t%llu\t%llu\t%llu\n", st.chunk, st.round, (unsigned long long)st.datagrams,
	       (unsigned long long)st.resent, (unsigned long long)st.dups, (unsigned long long)st.done_bytes);
	fflush(stdout);
}

static void print_round(uint64_t datagrams, uint64_t bytes, uint64_t missing, uint64_t blast_ns, uint64_t round_ns,
			uint64_t dups)
{
	fputs("#round", stdout);
	kv_u64("chunk", st.chunk);
	kv_u64("round", st.round);
	kv_u64("datagrams", datagrams);
	kv_u64("bytes", bytes);
	kv_u64("dups", dups);
	kv_u64("missing", missing);
	kv_u64("blast_ns", blast_ns);
	kv_u64("round_ns", round_ns);
	kv_u64("mono_ns", now_ns(CLOCK_MONOTONIC));
	putchar('\n');
	fflush(stdout);
}

static void print_end(const char *reason, uint64_t elapsed_ns, const char *sha, const char *peer_sha,
		      uint64_t peer_bytes, uint64_t rcvbuf)
{
	fputs("#end", stdout);
	kv_str("reason", reason);
	kv_str("role", opt.c.role == ROLE_SEND ? "send" : "recv");
	kv_u64("bytes", st.bytes);
	kv_u64("elapsed_ns", elapsed_ns);
	kv_u64("avg_bps", rate_bps(st.bytes, elapsed_ns));
	kv_str("sha256", sha ? sha : "-");
	kv_str("peer_sha256", peer_sha ? peer_sha : "-");
	kv_u64("peer_bytes", peer_bytes);
	kv_str("match", sha && peer_sha ? (!strcmp(sha, peer_sha) && peer_bytes == st.bytes ? "1" : "0") : "-");
	kv_u64("chunks", st.chunks);
	kv_u64("rounds", st.rounds);
	kv_u64("max_rounds", st.max_rounds);
	kv_u64("datagrams", st.datagrams);
	kv_u64("resent", st.resent);
	kv_u64("dups", st.dups);
	kv_u64("stale", st.stale);
	kv_u64("bad", st.bad);
	kv_u64("pace_resets", st.pace_resets);
	kv_u64("send_drops", st.send_drops);
	kv_u64("sockbuf", rcvbuf);
	kv_u64("rows", tick.rows);
	kv_u64("skipped_rows", tick.skipped);
	kv_u64("hash_ns", hash.cpu_ns);
	kv_str("sha256_impl", sha256_impl());
	kv_rusage();
	putchar('\n');
}

static int sock_bufsize(int fd, int which)
{
	int v = 0;
	socklen_t l = sizeof(v);

	getsockopt(fd, SOL_SOCKET, which, &v, &l);
	return v;
}

/* ---- sender ---- */

static int connect_ctrl(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, err = 0;
	socklen_t el = sizeof(err);
	struct pollfd p;

	if (fd < 0) {
		lfn_err("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_nonblock(fd, 1);
	if (connect(fd, (const struct sockaddr *)ss, len) && errno != EINPROGRESS) {
		lfn_err("connect %s port %u: %s", opt.c.connect, opt.c.port, strerror(errno));
		close(fd);
		return -1;
	}
	p.fd = fd;
	p.events = POLLOUT;
	for (;;) {
		int ms = opt.c.timeout_ns ? (int)(opt.c.timeout_ns / 1000000) : -1;
		int r = poll(&p, 1, ms);

		if (r < 0 && errno == EINTR && !lfn_stop_signal)
			continue;
		if (r <= 0) {
			if (!r)
				xfer_timed_out = 1;
			lfn_err("connect %s port %u: %s", opt.c.connect, opt.c.port,
				 r ? strerror(errno) : "timed out");
			close(fd);
			return -1;
		}
		break;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
	if (err) {
		lfn_err("connect %s port %u: %s", opt.c.connect, opt.c.port, strerror(err));
		close(fd);
		return -1;
	}
	return fd;
}

/* The chunk being sent; round 1 reads (or generates) and hashes it just ahead of the datagrams. */
struct tx_chunk {
	const struct source *src;
	uint8_t *buf;
	uint64_t off; /* of the chunk in the payload */
	uint64_t len;
	uint64_t filled;
};

static int tx_fill(struct tx_chunk *t, uint64_t upto)
{
	while (t->filled < upto) {
		uint64_t n = t->len - t->filled < HASH_SLICE ? t->len - t->filled : HASH_SLICE;

		if (source_read(t->src, t->off + t->filled, t->buf + t->filled, (size_t)n))
			return -1;
		hasher_update(&hash, t->buf + t->filled, (size_t)n);
		t->filled += n;
	}
	return 0;
}

/*
 * Sends the datagrams of this round: all of them in round 1, afterwards
 * those whose bit is set in missing. Datagram j of the round is due at
 * start + j * size / rate on CLOCK_MONOTONIC.
 */
static int blast(int udp, struct tx_chunk *t, uint32_t n, uint32_t session, const uint8_t *missing,
		 uint64_t *sent_out, uint64_t *bytes_out)
{
	const uint8_t *buf = t->buf;
	const uint64_t len = t->len;
	const uint32_t pl = opt.dgram - DGRAM_HDR;
	const double ns_per = (double)opt.dgram * 8e9 / (double)opt.rate_bps;
	uint64_t start = now_ns(CLOCK_MONOTONIC), j = 0, bytes = 0;
	uint8_t hdr[DGRAM_HDR];
	uint32_t seq;

	put_be32(hdr, session);
	put_be32(hdr + 4, st.chunk);
	put_be32(hdr + 12, st.round);
	for (seq = 0; seq < n; seq++) {
		struct iovec iov[2];
		struct msghdr mh;
		uint64_t due, now, off = (uint64_t)seq * pl;
		size_t plen = len - off < pl ? (size_t)(len - off) : pl;

		if (missing && !bit_get(missing, seq))
			continue;
		if (lfn_stop_signal)
			return -1;
		if (tx_fill(t, off + plen))
			return -1;
		due = start + (uint64_t)((double)j * ns_per);
		now = now_ns(CLOCK_MONOTONIC);
		maybe_row(now);
		if (now < due) {
			sleep_until(due);
		} else if (now - due > MAX_PACE_LAG_NS) {
			/* Far behind (descheduled, slow host): restart the schedule rather than burst. */
			start += now - due - MAX_PACE_LAG_NS;
			st.pace_resets++;
		}
		put_be32(hdr + 8, seq);
		iov[0].iov_base = hdr;
		iov[0].iov_len = DGRAM_HDR;
		iov[1].iov_base = (void *)(buf + off);
		iov[1].iov_len = plen;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = 2;
		for (;;) {
			if (sendmsg(udp, &mh, 0) >= 0)
				break;
			if (errno == EINTR && !lfn_stop_signal)
				continue;
			if (errno == ENOBUFS || errno == EAGAIN) {
				/* Dropped on this host; the receiver will report it missing. */
				st.send_drops++;
				break;
			}
			lfn_err("sending datagrams: %s", strerror(errno));
			return -1;
		}
		j++;
		bytes += plen;
		st.datagrams++;
		if (st.round > 1)
			st.resent++;
		else
			st.bytes += plen;
	}
	*sent_out = j;
	*bytes_out = bytes;
	return 0;
}

/* Waits for the control socket to become readable, writing rows meanwhile; 1 ready, 0 timeout/stop. */
static int wait_ctrl(int fd)
{
	uint64_t deadline = opt.c.timeout_ns ? now_ns(CLOCK_MONOTONIC) + opt.c.timeout_ns : UINT64_MAX;

	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC), wait = ticker_wait_ns(&tick, now);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r, ms;

		maybe_row(now);
		if (lfn_stop_signal)
			return 0;
		if (now >= deadline) {
			xfer_timed_out = 1;
			lfn_err("no answer from the receiver for %.1f s", (double)opt.c.timeout_ns / 1e9);
			return 0;
		}
		if (deadline - now < wait)
			wait = deadline - now;
		ms = wait == UINT64_MAX ? -1 : (int)((wait + 999999) / 1000000);
		r = poll(&p, 1, ms);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR) {
			lfn_err("poll: %s", strerror(errno));
			return 0;
		}
	}
}

/* Reads the receiver's report on the current round; the bitmap lands in missing if any are. */
static int recv_report(int ctrl, uint32_t n, uint8_t *missing, uint32_t *nmiss)
{
	const uint32_t blen = (n + 7) / 8;
	uint8_t hdr[8], body[REPORT_HDR_LEN];
	uint32_t type, len;

	if (read_full(ctrl, hdr, sizeof(hdr), opt.c.timeout_ns, "control connection"))
		return -1;
	type = get_be32(hdr);
	len = get_be32(hdr + 4);
	if (type != CTL_REPORT || (len != REPORT_HDR_LEN && len != REPORT_HDR_LEN + blen)) {
		lfn_err("protocol error: expected a report, got message %u with %u bytes", type, len);
		return -1;
	}
	if (read_full(ctrl, body, REPORT_HDR_LEN, opt.c.timeout_ns, "control connection"))
		return -1;
	*nmiss = get_be32(body + 8);
	if (get_be32(body) != st.chunk || get_be32(body + 4) != st.round || *nmiss > n ||
	    (*nmiss != 0) != (len != REPORT_HDR_LEN)) {
		lfn_err("protocol error: report for chunk %u round %u (%u missing) does not fit", get_be32(body),
			 get_be32(body + 4), *nmiss);
		return -1;
	}
	if (*nmiss && read_full(ctrl, missing, blen, opt.c.timeout_ns, "control connection"))
		return -1;
	return 0;
}

static int run_send(void)
{
	struct source src;
	struct sockaddr_storage ss;
	socklen_t slen;
	uint8_t msg[HELLO_LEN], fin[FIN_LEN], *buf = NULL, *missing = NULL;
	uint64_t chunk_cap, off = 0, elapsed = 0, peer_bytes = 0;
	uint32_t session, pl = opt.dgram - DGRAM_HDR;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1];
	const char *reason = "error";
	int ctrl = -1, udp = -1, status = 1, have_sha = 0, have_peer = 0;

	if (source_open(&src, opt.c.file, opt.c.bytes, opt.c.seed))
		return 1;
	opt.c.bytes = src.size;
	parse_addr(opt.c.connect, opt.c.port, &ss, &slen);
	print_header(opt.c.connect, opt.c.port);
	if (out_flush())
		return 1;
	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));

	chunk_cap = opt.chunk < src.size ? opt.chunk : src.size;
	buf = malloc(chunk_cap);
	missing = malloc((size_t)((chunk_cap / pl + 8) / 8 + 1));
	if (!buf || !missing) {
		lfn_err("out of memory for a %llu-byte chunk", (unsigned long long)chunk_cap);
		goto out;
	}
	ctrl = connect_ctrl(&ss, slen);
	if (ctrl < 0)
		goto out;
	udp = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp < 0 || connect(udp, (struct sockaddr *)&ss, slen)) {
		lfn_err("UDP socket to %s port %u: %s", opt.c.connect, opt.c.port, strerror(errno));
		goto out;
	}
	set_sockbuf(udp, opt.sockbuf);

	session = (uint32_t)(now_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() << 16);
	put_be32(msg, MAGIC);
	put_be32(msg + 4, PROTO_VERSION);
	put_be32(msg + 8, session);
	put_be32(msg + 12, opt.dgram);
	put_be64(msg + 16, opt.chunk);
	put_be64(msg + 24, src.size);
	put_be64(msg + 32, opt.rate_bps);
	if (send_msg(ctrl, CTL_HELLO, msg, HELLO_LEN, NULL, 0) ||
	    recv_msg(ctrl, CTL_HELLO_OK, msg, HELLO_OK_LEN, HELLO_OK_LEN) < 0)
		goto out;
	if (get_be32(msg) != MAGIC || get_be32(msg + 4) != session) {
		lfn_err("protocol error: the receiver answered for another session");
		goto out;
	}

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	for (st.chunk = 0; off < src.size; st.chunk++) {
		const uint64_t len = src.size - off < opt.chunk ? src.size - off : opt.chunk;
		const uint32_t n = (uint32_t)((len + pl - 1) / pl);
		const uint8_t *miss = NULL;
		struct tx_chunk t = { .src = &src, .buf = buf, .off = off, .len = len, .filled = 0 };

		for (st.round = 1;; st.round++) {
			uint64_t t_round = now_ns(CLOCK_MONOTONIC), sent, bytes, blast_ns;
			uint32_t nmiss;

			if (blast(udp, &t, n, session, miss, &sent, &bytes))
				goto out;
			blast_ns = now_ns(CLOCK_MONOTONIC) - t_round;
			put_be32(msg, st.chunk);
			put_be32(msg + 4, st.round);
			put_be32(msg + 8, (uint32_t)sent);
			if (send_msg(ctrl, CTL_BLAST_END, msg, BLAST_END_LEN, NULL, 0) || !wait_ctrl(ctrl))
				goto out;
			if (recv_report(ctrl, n, missing, &nmiss))
				goto out;
			st.rounds++;
			if (st.round > st.max_rounds)
				st.max_rounds = st.round;
			print_round(sent, bytes, nmiss, blast_ns, now_ns(CLOCK_MONOTONIC) - t_round, 0);
			if (!nmiss)
				break;
			miss = missing;
		}
		st.done_bytes += len;
		st.chunks++;
		off += len;
	}
	elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	maybe_row(now_ns(CLOCK_MONOTONIC));

	hasher_final(&hash, fin + 8, sha);
	have_sha = 1;
	put_be64(fin, src.size);
	if (send_msg(ctrl, CTL_FIN, fin, FIN_LEN, NULL, 0) || recv_msg(ctrl, CTL_FIN_OK, fin, FIN_LEN, FIN_LEN) < 0)
		goto out;
	peer_bytes = get_be64(fin);
	sha256_hex(fin + 8, peer_sha);
	have_peer = 1;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != src.size ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes,
		  udp >= 0 ? (uint64_t)sock_bufsize(udp, SO_SNDBUF) : 0);
	if (out_flush())
		status = 1;
	if (ctrl >= 0)
		close(ctrl);
	if (udp >= 0)
		close(udp);
	free(buf);
	free(missing);
	return status;
}

/* ---- receiver ---- */

struct rx {
	int udp;
	uint32_t session, n, pl;
	uint64_t len;
	uint8_t *buf, *have;
	uint8_t *slots;
	uint32_t hashed; /* datagrams of this chunk hashed in order */
	/* per round */
	uint64_t r_new, r_bytes, r_dups, r_first, r_last;
};

static void rx_datagram(struct rx *x, const uint8_t *d, size_t len)
{
	uint32_t chunk, seq, round;
	uint64_t off;
	size_t want;

	if (len < DGRAM_HDR || get_be32(d) != x->session) {
		st.bad++;
		return;
	}
	chunk = get_be32(d + 4);
	seq = get_be32(d + 8);
	round = get_be32(d + 12);
	if (chunk != st.chunk) {
		st.stale++;
		return;
	}
	off = (uint64_t)seq * x->pl;
	want = seq < x->n ? (x->len - off < x->pl ? (size_t)(x->len - off) : x->pl) : 0;
	if (seq >= x->n || len - DGRAM_HDR != want) {
		st.bad++;
		return;
	}
	st.datagrams++;
	if (round > 1)
		st.resent++;
	if (bit_get(x->have, seq)) {
		st.dups++;
		x->r_dups++;
		return;
	}
	memcpy(x->buf + off, d + DGRAM_HDR, want);
	bit_set(x->have, seq);
	st.bytes += want;
	x->r_new++;
	x->r_bytes += want;
}

/* Reads what the UDP socket holds (at most max batches); returns datagrams read or -1. */
static long rx_drain(struct rx *x, int max_batches)
{
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	long total = 0;
	int b, i;

	for (b = 0; b < max_batches; b++) {
		int got;

		for (i = 0; i < RECV_BATCH; i++) {
			iov[i].iov_base = x->slots + (size_t)i * opt.dgram;
			iov[i].iov_len = opt.dgram;
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		got = recvmmsg(x->udp, mm, RECV_BATCH, MSG_DONTWAIT, NULL);
		if (got < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			lfn_err("receiving datagrams: %s", strerror(errno));
			return -1;
		}
		if (got > 0) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (!x->r_first)
				x->r_first = now;
			x->r_last = now;
		}
		for (i = 0; i < got; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC)
				st.bad++;
			else
				rx_datagram(x, x->slots + (size_t)i * opt.dgram, mm[i].msg_len);
		}
		total += got;
		if (got < RECV_BATCH)
			break;
	}
	return total;
}

/* Hashes the in-order prefix that is complete, at most limit bytes of it (0 = all). */
static void rx_hash(struct rx *x, uint64_t limit)
{
	uint64_t budget = limit ? limit : UINT64_MAX;

	while (x->hashed < x->n && bit_get(x->have, x->hashed) && budget) {
		uint32_t end = x->hashed;
		uint64_t from = (uint64_t)x->hashed * x->pl, to;

		while (end < x->n && bit_get(x->have, end) && (uint64_t)(end - x->hashed) * x->pl < budget)
			end++;
		to = (uint64_t)end * x->pl < x->len ? (uint64_t)end * x->pl : x->len;
		hasher_update(&hash, x->buf + from, (size_t)(to - from));
		st.done_bytes += to - from;
		budget = to - from >= budget ? 0 : budget - (to - from);
		x->hashed = end;
	}
}

static int listen_on(int type, const struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, type | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) || (type == SOCK_STREAM && listen(fd, 4))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int run_recv(void)
{
	struct sockaddr_storage ss;
	socklen_t slen;
	struct rx x;
	uint8_t msg[HELLO_LEN], fin[FIN_LEN], *report = NULL;
	uint64_t total = 0, elapsed = 0, chunk, peer_bytes = 0, t_mark;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1], addr[64];
	const char *reason = "error";
	int lfd = -1, ctrl = -1, status = 1, have_sha = 0, have_peer = 0, one = 1;
	unsigned port;

	memset(&x, 0, sizeof(x));
	x.udp = -1;
	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));
	parse_addr(opt.c.bind ? opt.c.bind : "0.0.0.0", opt.c.port, &ss, &slen);
	lfd = listen_on(SOCK_STREAM, &ss, slen);
	if (lfd < 0) {
		lfn_err("listen on %s port %u: %s", opt.c.bind ? opt.c.bind : "0.0.0.0", opt.c.port, strerror(errno));
		return 1;
	}
	/* Port 0: the UDP socket takes the port the kernel gave the TCP listener. */
	getsockname(lfd, (struct sockaddr *)&ss, &slen);
	x.udp = listen_on(SOCK_DGRAM, &ss, slen);
	addr_to_str((struct sockaddr *)&ss, addr, sizeof(addr), &port);
	if (x.udp < 0) {
		lfn_err("bind UDP %s port %u: %s", addr, port, strerror(errno));
		goto out;
	}
	set_sockbuf(x.udp, opt.sockbuf);
	print_header(addr, port);
	if (out_flush())
		goto out;

	if (wait_readable(lfd, opt.c.timeout_ns) != 1) {
		if (!lfn_stop_signal)
			lfn_err("no sender connected within %.1f s", (double)opt.c.timeout_ns / 1e9);
		goto out;
	}
	ctrl = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (ctrl < 0) {
		lfn_err("accept: %s", strerror(errno));
		goto out;
	}
	setsockopt(ctrl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (recv_msg(ctrl, CTL_HELLO, msg, HELLO_LEN, HELLO_LEN) < 0)
		goto out;
	if (get_be32(msg) != MAGIC || get_be32(msg + 4) != PROTO_VERSION) {
		lfn_err("protocol error: not an " PROG " v%u sender", PROTO_VERSION);
		goto out;
	}
	x.session = get_be32(msg + 8);
	opt.dgram = get_be32(msg + 12);
	opt.chunk = get_be64(msg + 16);
	total = get_be64(msg + 24);
	opt.rate_bps = get_be64(msg + 32);
	if (opt.dgram < MIN_DGRAM || opt.dgram > MAX_DGRAM || !opt.chunk || opt.chunk > MAX_CHUNK || !total) {
		lfn_err("protocol error: unusable parameters (datagram %u, chunk %llu, bytes %llu)", opt.dgram,
			 (unsigned long long)opt.chunk, (unsigned long long)total);
		goto out;
	}
	x.pl = opt.dgram - DGRAM_HDR;
	chunk = opt.chunk < total ? opt.chunk : total;
	x.buf = malloc(chunk);
	x.have = malloc((size_t)(chunk / x.pl + 8) / 8 + 1);
	report = malloc((size_t)(chunk / x.pl + 8) / 8 + 1);
	x.slots = malloc((size_t)RECV_BATCH * opt.dgram);
	if (!x.buf || !x.have || !report || !x.slots) {
		lfn_err("out of memory for a %llu-byte chunk", (unsigned long long)chunk);
		goto out;
	}
	put_be32(msg, MAGIC);
	put_be32(msg + 4, x.session);
	put_be32(msg + 8, (uint32_t)sock_bufsize(x.udp, SO_RCVBUF));
	if (send_msg(ctrl, CTL_HELLO_OK, msg, HELLO_OK_LEN, NULL, 0))
		goto out;

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	t_mark = t_start;
	for (st.chunk = 0; st.done_bytes < total; st.chunk++) {
		uint64_t idle_since = now_ns(CLOCK_MONOTONIC);

		x.len = total - st.done_bytes < opt.chunk ? total - st.done_bytes : opt.chunk;
		x.n = (uint32_t)((x.len + x.pl - 1) / x.pl);
		x.hashed = 0;
		memset(x.have, 0, (x.n + 7) / 8);
		st.round = 1;
		x.r_new = x.r_bytes = x.r_dups = x.r_first = x.r_last = 0;
		for (;;) {
			struct pollfd p[2] = { { .fd = x.udp, .events = POLLIN }, { .fd = ctrl, .events = POLLIN } };
			uint64_t now = now_ns(CLOCK_MONOTONIC), wait = ticker_wait_ns(&tick, now);
			long got;
			int r, ms;

			maybe_row(now);
			if (lfn_stop_signal)
				goto out;
			if (opt.c.timeout_ns) {
				if (now - idle_since >= opt.c.timeout_ns) {
					xfer_timed_out = 1;
					lfn_err("nothing from the sender for %.1f s", (double)opt.c.timeout_ns / 1e9);
					goto out;
				}
				if (idle_since + opt.c.timeout_ns - now < wait)
					wait = idle_since + opt.c.timeout_ns - now;
			}
			/* Unhashed in-order data waiting: look at the sockets without blocking. */
			if (x.hashed < x.n && bit_get(x.have, x.hashed))
				wait = 0;
			ms = wait == UINT64_MAX ? -1 : (int)((wait + 999999) / 1000000);
			r = poll(p, 2, ms);
			if (r < 0 && errno != EINTR) {
				lfn_err("poll: %s", strerror(errno));
				goto out;
			}
			if (r > 0 && (p[0].revents & POLLIN)) {
				got = rx_drain(&x, 16);
				if (got < 0)
					goto out;
				if (got)
					idle_since = now_ns(CLOCK_MONOTONIC);
			}
			rx_hash(&x, HASH_SLICE);
			if (r > 0 && p[1].revents) {
				uint32_t nmiss = 0, i, blen = (x.n + 7) / 8;
				uint64_t t_end;

				if (recv_msg(ctrl, CTL_BLAST_END, msg, BLAST_END_LEN, BLAST_END_LEN) < 0)
					goto out;
				if (get_be32(msg) != st.chunk || get_be32(msg + 4) != st.round) {
					lfn_err("protocol error: end of chunk %u round %u while at chunk %u round %u",
						 get_be32(msg), get_be32(msg + 4), st.chunk, st.round);
					goto out;
				}
				/* Datagrams that left before the message are in the socket by now on a FIFO path. */
				if (rx_drain(&x, 1 << 20) < 0)
					goto out;
				memset(report, 0, blen);
				for (i = 0; i < x.n; i++) {
					if (!bit_get(x.have, i)) {
						bit_set(report, i);
						nmiss++;
					}
				}
				if (!nmiss)
					rx_hash(&x, 0); /* the chunk is delivered only once it is hashed */
				put_be32(msg, st.chunk);
				put_be32(msg + 4, st.round);
				put_be32(msg + 8, nmiss);
				if (send_msg(ctrl, CTL_REPORT, msg, REPORT_HDR_LEN, report, nmiss ? blen : 0))
					goto out;
				t_end = now_ns(CLOCK_MONOTONIC);
				st.rounds++;
				if (st.round > st.max_rounds)
					st.max_rounds = st.round;
				print_round(x.r_new, x.r_bytes, nmiss, x.r_first ? x.r_last - x.r_first : 0, t_end - t_mark,
					    x.r_dups);
				t_mark = t_end;
				idle_since = t_end;
				x.r_new = x.r_bytes = x.r_dups = x.r_first = x.r_last = 0;
				if (!nmiss)
					break;
				st.round++;
			}
		}
		st.chunks++;
	}
	elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	maybe_row(now_ns(CLOCK_MONOTONIC));

	if (recv_msg(ctrl, CTL_FIN, fin, FIN_LEN, FIN_LEN) < 0)
		goto out;
	peer_bytes = get_be64(fin);
	sha256_hex(fin + 8, peer_sha);
	have_peer = 1;
	hasher_final(&hash, fin + 8, sha);
	have_sha = 1;
	put_be64(fin, st.done_bytes);
	if (send_msg(ctrl, CTL_FIN_OK, fin, FIN_LEN, NULL, 0))
		goto out;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != st.done_bytes ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	/* The receiver's byte count is what it delivered in order, not what merely arrived. */
	st.bytes = st.done_bytes;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes,
		  x.udp >= 0 ? (uint64_t)sock_bufsize(x.udp, SO_RCVBUF) : 0);
	if (out_flush())
		status = 1;
	if (ctrl >= 0)
		close(ctrl);
	if (lfd >= 0)
		close(lfd);
	if (x.udp >= 0)
		close(x.udp);
	free(x.buf);
	free(x.have);
	free(x.slots);
	free(report);
	return status;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --recv [--bind ADDR] [--port P] [OPTIONS]\n"
		"       " PROG " --send --connect ADDR [--port P] --rate BPS (--bytes N | --file PATH) [OPTIONS]\n"
		"       " PROG " --digest (--bytes N [--seed S] | --file PATH)\n"
		"Reliable Blast UDP: the sender blasts each chunk of the payload as UDP datagrams at a fixed,\n"
		"paced rate, the receiver returns a bitmap of missing datagrams over a TCP control connection,\n"
		"and the sender re-blasts just those, round after round, until none is missing. Both sides\n"
		"print the SHA-256 of the payload and whether the peer's matches.\n"
		"\n");
	common_usage(f, DEFAULT_PORT);
	fprintf(f,
		"RBUDP options (--rate, --datagram, --chunk: sender only, the receiver learns them from it):\n"
		"  --rate BPS          sending rate in bits per second of UDP payload (our 16-byte header\n"
		"                      included, IP/UDP headers not, like iperf -u -b); suffixes k M G (x1000).\n"
		"                      Required: RBUDP has no congestion control, the rate is yours to choose\n"
		"  --datagram BYTES    UDP payload size per datagram incl. the 16-byte header, %u..%u\n"
		"                      (default %u: fits a 1500-byte IPv4 MTU)\n"
		"  --chunk BYTES       bytes blasted before waiting for a bitmap; the receiver holds one chunk in\n"
		"                      memory (default %llu = 64 MiB, at most 4 GiB; suffixes as for --bytes)\n"
		"  --sockbuf BYTES     UDP socket send (sender) / receive (receiver) buffer, set with the FORCE\n"
		"                      options as root (default %d; 0 = system default)\n"
		"\n"
		"Datagram i of a round is sent at start + i * datagram / rate on CLOCK_MONOTONIC. A sender more\n"
		"than 1 ms behind that schedule (descheduled, slow host) moves the schedule back so it stays\n"
		"1 ms behind (counted as pace_resets): a catch-up burst never exceeds 1 ms worth of datagrams.\n"
		"\n"
		"Output (v%d), on stdout: a '# " PROG " v%d role=...' header with the settings (the receiver's\n"
		"has the actual port), a '#tick...' line naming the columns, then tab-separated progress rows,\n"
		"due at start + k/HZ on CLOCK_MONOTONIC from the start of the transfer (the handshake):\n"
		"  tick                row slot k (a gap = slots skipped while busy)\n"
		"  mono_ns             CLOCK_MONOTONIC when written, ns\n"
		"  elapsed_ns          since the start of the transfer, ns\n"
		"  bytes               distinct payload bytes sent (send) / received, in any order (recv)\n"
		"  interval_bps        bits/s of bytes since the previous row (0 in the first row)\n"
		"  avg_bps             bits/s of bytes since the start\n",
		MIN_DGRAM, MAX_DGRAM, DEFAULT_DGRAM, (unsigned long long)DEFAULT_CHUNK, DEFAULT_SOCKBUF,
		XFER_FORMAT_VERSION, XFER_FORMAT_VERSION);
#define HELP_COL(name, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	ROW_COLUMNS(HELP_COL)
#undef HELP_COL
	fprintf(f,
		"After each round (tab-separated key=value):\n"
		"  #round chunk=N round=N datagrams=N bytes=N dups=N missing=N blast_ns=N round_ns=N mono_ns=N\n"
		"    send: datagrams/bytes sent in the round, missing = datagrams the receiver still lacked after\n"
		"          it, blast_ns = first to last send, round_ns = round start to the bitmap's arrival\n"
		"    recv: datagrams/bytes new in the round, dups = duplicates, missing as reported, blast_ns =\n"
		"          first to last datagram, round_ns = previous report (or start) to this one\n"
		"Last line:\n"
		"  #end reason=done|error|timeout|signal role=send|recv bytes=N elapsed_ns=N avg_bps=N\n"
		"       sha256=HEX|- peer_sha256=HEX|- peer_bytes=N match=1|0|- chunks=N rounds=N max_rounds=N\n"
		"       datagrams=N resent=N dups=N stale=N bad=N pace_resets=N send_drops=N sockbuf=N rows=N\n"
		"       skipped_rows=N hash_ns=N sha256_impl=shani|c user_ns=N sys_ns=N\n"
		"  bytes = payload bytes sent (send) / delivered in order and hashed (recv); elapsed_ns = start\n"
		"  to the last chunk's final bitmap; sha256 = this side's digest of the payload, peer_sha256 and\n"
		"  peer_bytes = the other side's; stale = datagrams of an earlier chunk, bad = malformed or of\n"
		"  another session; send_drops = datagrams the local stack refused (ENOBUFS); sockbuf = the UDP\n"
		"  buffer as the kernel reports it (twice what was set); hash_ns = CPU time spent in SHA-256 (sha256_impl: SHA-NI or portable C code);\n"
		"  user_ns/sys_ns = CPU time of the process (getrusage).\n"
		"\n"
		"Exit status: 0 transfer verified, 3 transfer completed but the digests differ, 1 runtime\n"
		"error, timeout or signal, 2 bad usage.\n");
}

static int parse_args(int argc, char **argv)
{
	enum { OPT_RATE = OPT_PROGRAM, OPT_DATAGRAM, OPT_CHUNK, OPT_SOCKBUF };
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "datagram", required_argument, NULL, OPT_DATAGRAM },
		{ "chunk", required_argument, NULL, OPT_CHUNK },
		{ "sockbuf", required_argument, NULL, OPT_SOCKBUF },
		{ NULL, 0, NULL, 0 },
	};
	int c, sender_only = 0;

	common_defaults(&opt.c, DEFAULT_PORT);
	opt.dgram = DEFAULT_DGRAM;
	opt.chunk = DEFAULT_CHUNK;
	opt.sockbuf = DEFAULT_SOCKBUF;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint64_t v;
		int r = common_option(&opt.c, c, optarg);

		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_RATE:
			if (parse_scaled(optarg, 1000, 100000000000ull, &v)) {
				fprintf(stderr, PROG ": --rate must be 1k..100G bits per second (got '%s')\n", optarg);
				return -1;
			}
			opt.rate_bps = v;
			break;
		case OPT_DATAGRAM:
			if (parse_u64(optarg, MIN_DGRAM, MAX_DGRAM, &v)) {
				fprintf(stderr, PROG ": --datagram must be %u..%u bytes (got '%s')\n", MIN_DGRAM, MAX_DGRAM,
					optarg);
				return -1;
			}
			opt.dgram = (unsigned)v;
			sender_only = 1;
			break;
		case OPT_CHUNK:
			if (parse_scaled(optarg, 1, MAX_CHUNK, &v)) {
				fprintf(stderr, PROG ": --chunk must be 1..4Gi bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.chunk = v;
			sender_only = 1;
			break;
		case OPT_SOCKBUF:
			if (parse_scaled(optarg, 0, 1u << 30, &v)) {
				fprintf(stderr, PROG ": --sockbuf must be 0..1Gi bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.sockbuf = (int)v;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, XFER_FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	if (common_check(&opt.c))
		return -1;
	if (opt.c.role == ROLE_SEND && !opt.c.digest && !opt.rate_bps) {
		fprintf(stderr, PROG ": --send needs --rate BPS (RBUDP sends at a rate you choose)\n");
		return -1;
	}
	if (opt.c.role == ROLE_RECV && (opt.rate_bps || sender_only)) {
		fprintf(stderr, PROG ": --rate, --datagram and --chunk are for --send; the receiver learns them\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	return xfer_main(argc, argv, PROG, &opt.c, parse_args, 0, run_send, run_recv);
}
