// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-psockets: PSockets-style striped bulk transfer over N parallel TCP
 * connections (sender and receiver).
 *
 * The payload is cut into blocks; block b travels on stream b mod N, so each
 * stream carries every N-th block and the aggregate window is N times one
 * connection's. The receiver reassembles the blocks in order in a window of
 * --window blocks: a stream whose next block lies beyond the window is not
 * read, so TCP flow control holds it back. The sender generates (or reads)
 * and hashes blocks in order into a window of its own and writes each
 * stream's blocks as its socket accepts them.
 *
 * The receiver listens, the sender opens the N connections; each starts with
 * a 32-byte hello (magic, version, session, stream index, streams, block
 * size, payload size; big-endian). When everything is written, stream 0
 * carries the sender's SHA-256 and byte count, and the receiver answers on it
 * with its own, computed over the payload as reassembled.
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

#include "xfer.h"

#define PROG "lfn-psockets"
#define DEFAULT_PORT 5320
#define MAGIC 0x4c465053u /* "LFPS" */
#define FIN_MAGIC 0x4c464649u /* "LFFI" */
#define PROTO_VERSION 1u
#define HELLO_LEN 32u
#define FIN_LEN 44u /* magic, bytes, sha256 */
#define MAX_STREAMS 1024u
#define DEFAULT_STREAMS 4u
#define DEFAULT_BLOCK (128u << 10)
#define MIN_BLOCK 512u
#define MAX_BLOCK (64u << 20)
#define MIN_WINDOW 16u
/* Per socket per poll round, so one fast stream cannot starve the rest. */
#define MAX_IO_PER_ROUND (1u << 20)

#define ROW_COLUMNS(X)                                                                                         \
	X(in_order, "in-order prefix, bytes: fully written (send) / reassembled and hashed (recv)")            \
	X(streams_active, "streams with blocks still to write (send) / read (recv)")                           \
	X(min_stream_bytes, "payload bytes of the stream that has moved least")                                 \
	X(max_stream_bytes, "payload bytes of the stream that has moved most")

struct options {
	struct common_opts c;
	unsigned streams;
	unsigned block;
	unsigned window; /* blocks; 0 = default for the stream count */
	int sockbuf;
	const char *cc;
};

struct stream {
	int fd;
	uint64_t next; /* next block this stream carries */
	uint64_t pos;  /* bytes of that block written / read so far */
	uint64_t bytes;
};

static struct options opt;
static struct ticker tick;
static struct hasher hash;
static struct stream *streams;
static unsigned nstreams;
static uint64_t total_bytes, nblocks, io_bytes, in_order_bytes, t_start;

/* ---- helpers ---- */

static uint64_t block_len(uint64_t b)
{
	uint64_t off = b * opt.block;

	return total_bytes - off < opt.block ? total_bytes - off : opt.block;
}

static unsigned window_blocks(void)
{
	unsigned w = opt.window ? opt.window : 4 * nstreams;

	if (w < MIN_WINDOW && !opt.window)
		w = MIN_WINDOW;
	if (w > nblocks)
		w = (unsigned)nblocks;
	return w ? w : 1;
}

static int tune_socket(int fd)
{
	int one = 1;

	set_sockbuf(fd, opt.sockbuf);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (opt.cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, opt.cc, (socklen_t)strlen(opt.cc))) {
		lfn_err("congestion control '%s': %s", opt.cc, strerror(errno));
		return -1;
	}
	return 0;
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

static unsigned active_streams(void)
{
	unsigned i, n = 0;

	for (i = 0; i < nstreams; i++)
		n += streams[i].next < nblocks;
	return n;
}

static void maybe_row(uint64_t now)
{
	struct tick_row r;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned i;

	if (!ticker_due(&tick, now, io_bytes, &r))
		return;
	for (i = 0; i < nstreams; i++) {
		if (streams[i].bytes < lo)
			lo = streams[i].bytes;
		if (streams[i].bytes > hi)
			hi = streams[i].bytes;
	}
	print_tick_prefix(&r);
	printf("\t%llu\t%u\t%llu\t%llu\n", (unsigned long long)in_order_bytes, active_streams(),
	       (unsigned long long)(nstreams ? lo : 0), (unsigned long long)hi);
	fflush(stdout);
}

static void print_end(const char *reason, uint64_t elapsed, const char *sha, const char *peer_sha, uint64_t peer_bytes,
		      uint64_t bytes)
{
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
	kv_u64("streams", nstreams);
	kv_u64("block", opt.block);
	kv_u64("window", nblocks ? window_blocks() : 0);
	kv_u64("rows", tick.rows);
	kv_u64("skipped_rows", tick.skipped);
	kv_u64("hash_ns", hash.cpu_ns);
	kv_str("sha256_impl", sha256_impl());
	kv_rusage();
	putchar('\n');
}

/* poll() timeout in ms until the next row or the idle deadline (whichever is first). */
static int poll_ms(uint64_t now, uint64_t idle_since)
{
	uint64_t wait = ticker_wait_ns(&tick, now);

	if (opt.c.timeout_ns) {
		uint64_t left = idle_since + opt.c.timeout_ns > now ? idle_since + opt.c.timeout_ns - now : 0;

		if (left < wait)
			wait = left;
	}
	return wait == UINT64_MAX ? -1 : (int)((wait + 999999) / 1000000);
}

static int idle_expired(uint64_t now, uint64_t idle_since)
{
	return opt.c.timeout_ns && now - idle_since >= opt.c.timeout_ns;
}

/* ---- sender ---- */

static int connect_all(const struct sockaddr_storage *ss, socklen_t len)
{
	struct pollfd *p = calloc(nstreams, sizeof(*p));
	uint64_t deadline = opt.c.timeout_ns ? now_ns(CLOCK_MONOTONIC) + opt.c.timeout_ns : 0;
	unsigned i, pending = nstreams;
	int rc = -1;

	if (!p) {
		lfn_err("out of memory");
		return -1;
	}
	for (i = 0; i < nstreams; i++) {
		int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		streams[i].fd = fd;
		if (fd < 0) {
			lfn_err("socket for stream %u: %s", i, strerror(errno));
			goto out;
		}
		if (tune_socket(fd))
			goto out;
		if (connect(fd, (const struct sockaddr *)ss, len) && errno != EINPROGRESS) {
			lfn_err("connect %s port %u (stream %u): %s", opt.c.connect, opt.c.port, i, strerror(errno));
			goto out;
		}
		p[i].fd = fd;
		p[i].events = POLLOUT;
	}
	while (pending) {
		int ms = -1, r;

		if (lfn_stop_signal)
			goto out;
		if (deadline) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (now >= deadline) {
				xfer_timed_out = 1;
				lfn_err("connect %s port %u: timed out", opt.c.connect, opt.c.port);
				goto out;
			}
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		r = poll(p, nstreams, ms);
		if (r < 0 && errno != EINTR) {
			lfn_err("poll: %s", strerror(errno));
			goto out;
		}
		for (i = 0; r > 0 && i < nstreams; i++) {
			int err = 0;
			socklen_t el = sizeof(err);

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			getsockopt(p[i].fd, SOL_SOCKET, SO_ERROR, &err, &el);
			if (err) {
				lfn_err("connect %s port %u (stream %u): %s", opt.c.connect, opt.c.port, i, strerror(err));
				goto out;
			}
			p[i].fd = -1;
			pending--;
		}
	}
	rc = 0;
out:
	free(p);
	return rc;
}

static int run_send(void)
{
	struct source src;
	struct sockaddr_storage ss;
	socklen_t slen;
	struct pollfd *p = NULL;
	uint8_t *ring = NULL, *sent = NULL, msg[FIN_LEN];
	uint64_t gen = 0, low = 0, elapsed = 0, peer_bytes = 0, idle_since;
	unsigned i, w = 0, *which = NULL;
	uint32_t session;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1];
	const char *reason = "error";
	int status = 1, have_sha = 0, have_peer = 0;

	if (source_open(&src, opt.c.file, opt.c.bytes, opt.c.seed))
		return 1;
	total_bytes = src.size;
	nblocks = (total_bytes + opt.block - 1) / opt.block;
	nstreams = opt.streams;
	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));
	printf("# " PROG " v%d role=send connect=%s port=%u bytes=%llu", XFER_FORMAT_VERSION, opt.c.connect, opt.c.port,
	       (unsigned long long)total_bytes);
	if (opt.c.file)
		printf(" source=file");
	else
		printf(" source=seed:%llu", (unsigned long long)opt.c.seed);
	printf(" streams=%u block=%u window=%u sockbuf=%d cc=%s report_hz=%u\n", nstreams, opt.block, window_blocks(),
	       opt.sockbuf, opt.cc ? opt.cc : "default", opt.c.report_hz);
	print_columns();
	if (out_flush())
		return 1;

	streams = calloc(nstreams, sizeof(*streams));
	p = calloc(nstreams, sizeof(*p));
	which = calloc(nstreams, sizeof(*which));
	w = window_blocks();
	ring = malloc((size_t)w * opt.block);
	sent = calloc(w, 1);
	if (!streams || !p || !which || !ring || !sent) {
		lfn_err("out of memory for %u blocks of %u bytes", w, opt.block);
		goto out;
	}
	for (i = 0; i < nstreams; i++) {
		streams[i].fd = -1;
		streams[i].next = i;
	}
	parse_addr(opt.c.connect, opt.c.port, &ss, &slen);
	if (connect_all(&ss, slen))
		goto out;
	session = (uint32_t)(now_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() << 16);
	for (i = 0; i < nstreams; i++) {
		uint8_t h[HELLO_LEN];

		put_be32(h, MAGIC);
		put_be32(h + 4, PROTO_VERSION);
		put_be32(h + 8, session);
		put_be32(h + 12, i);
		put_be32(h + 16, nstreams);
		put_be32(h + 20, opt.block);
		put_be64(h + 24, total_bytes);
		if (write_full(streams[i].fd, h, HELLO_LEN, opt.c.timeout_ns, "hello"))
			goto out;
	}

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	idle_since = t_start;
	while (low < nblocks) {
		uint64_t now;
		unsigned np = 0;
		int r;

		/* Produce blocks in order while the window has room; hashing here keeps the digest in order. */
		while (gen < nblocks && gen < low + w) {
			uint8_t *slot = ring + (size_t)(gen % w) * opt.block;
			uint64_t len = block_len(gen);

			if (source_read(&src, gen * opt.block, slot, (size_t)len))
				goto out;
			hasher_update(&hash, slot, (size_t)len);
			sent[gen % w] = 0;
			gen++;
		}
		for (i = 0; i < nstreams; i++) {
			if (streams[i].next < gen) {
				p[np].fd = streams[i].fd;
				p[np].events = POLLOUT;
				which[np++] = i;
			}
		}
		now = now_ns(CLOCK_MONOTONIC);
		maybe_row(now);
		if (lfn_stop_signal)
			goto out;
		if (idle_expired(now, idle_since)) {
			lfn_err("no progress for %.1f s", (double)opt.c.timeout_ns / 1e9);
			xfer_timed_out = 1;
			goto out;
		}
		r = poll(p, np, poll_ms(now, idle_since));
		if (r < 0 && errno != EINTR) {
			lfn_err("poll: %s", strerror(errno));
			goto out;
		}
		for (i = 0; r > 0 && i < np; i++) {
			struct stream *s = &streams[which[i]];
			uint64_t moved = 0;

			if (!p[i].revents)
				continue;
			while (s->next < gen && moved < MAX_IO_PER_ROUND) {
				const uint64_t len = block_len(s->next);
				const uint8_t *slot = ring + (size_t)(s->next % w) * opt.block;
				ssize_t n = send(s->fd, slot + s->pos, (size_t)(len - s->pos), MSG_NOSIGNAL | MSG_DONTWAIT);

				if (n < 0) {
					if (errno == EAGAIN || errno == EINTR)
						break;
					lfn_err("stream %u: %s", which[i], strerror(errno));
					goto out;
				}
				s->pos += (uint64_t)n;
				s->bytes += (uint64_t)n;
				io_bytes += (uint64_t)n;
				moved += (uint64_t)n;
				if (s->pos == len) {
					sent[s->next % w] = 1;
					s->next += nstreams;
					s->pos = 0;
				}
			}
			if (moved)
				idle_since = now_ns(CLOCK_MONOTONIC);
			/* A stream with nothing more to carry tells the receiver so (stream 0 still has the digest). */
			if (s->next >= nblocks && which[i] != 0)
				shutdown(s->fd, SHUT_WR);
		}
		while (low < gen && sent[low % w]) {
			in_order_bytes += block_len(low);
			low++;
		}
	}

	hasher_final(&hash, msg + 12, sha);
	have_sha = 1;
	put_be32(msg, FIN_MAGIC);
	put_be64(msg + 4, total_bytes);
	if (write_full(streams[0].fd, msg, FIN_LEN, opt.c.timeout_ns, "stream 0"))
		goto out;
	/* Rows keep coming while the receiver finishes; its answer ends the transfer. */
	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		struct pollfd q = { .fd = streams[0].fd, .events = POLLIN };
		int r;

		maybe_row(now);
		if (lfn_stop_signal)
			goto out;
		if (idle_expired(now, idle_since)) {
			lfn_err("no answer from the receiver for %.1f s", (double)opt.c.timeout_ns / 1e9);
			xfer_timed_out = 1;
			goto out;
		}
		r = poll(&q, 1, poll_ms(now, idle_since));
		if (r > 0)
			break;
		if (r < 0 && errno != EINTR) {
			lfn_err("poll: %s", strerror(errno));
			goto out;
		}
	}
	if (read_full(streams[0].fd, msg, FIN_LEN, opt.c.timeout_ns, "stream 0 (receiver's digest)"))
		goto out;
	elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	maybe_row(now_ns(CLOCK_MONOTONIC));
	if (get_be32(msg) != FIN_MAGIC) {
		lfn_err("protocol error: bad digest message from the receiver");
		goto out;
	}
	peer_bytes = get_be64(msg + 4);
	sha256_hex(msg + 12, peer_sha);
	have_peer = 1;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != total_bytes ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes, io_bytes);
	if (out_flush())
		status = 1;
	for (i = 0; streams && i < nstreams; i++)
		if (streams[i].fd >= 0)
			close(streams[i].fd);
	free(streams);
	free(p);
	free(which);
	free(ring);
	free(sent);
	return status;
}

/* ---- receiver ---- */

/* Accepts connections until all streams of one session have said hello. */
static int accept_streams(int lfd)
{
	uint64_t deadline = opt.c.timeout_ns ? now_ns(CLOCK_MONOTONIC) + opt.c.timeout_ns : 0;
	uint32_t session = 0;
	unsigned got = 0;

	for (;;) {
		uint8_t h[HELLO_LEN];
		unsigned idx, n;
		int fd, r;
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		if (deadline && now >= deadline) {
			xfer_timed_out = 1;
			r = 0;
		} else {
			r = wait_readable(lfd, deadline ? deadline - now : 0);
		}
		if (r != 1) {
			if (!lfn_stop_signal && !got)
				lfn_err("no sender connected within %.1f s", (double)opt.c.timeout_ns / 1e9);
			else if (!lfn_stop_signal)
				lfn_err("only %u of %u streams connected in time", got, nstreams);
			return -1;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			lfn_err("accept: %s", strerror(errno));
			return -1;
		}
		if (read_full(fd, h, HELLO_LEN, opt.c.timeout_ns, "hello")) {
			close(fd);
			return -1;
		}
		idx = get_be32(h + 12);
		n = get_be32(h + 16);
		if (get_be32(h) != MAGIC || get_be32(h + 4) != PROTO_VERSION) {
			lfn_err("protocol error: not an " PROG " v%u sender", PROTO_VERSION);
			close(fd);
			return -1;
		}
		if (!got) {
			session = get_be32(h + 8);
			nstreams = n;
			opt.block = get_be32(h + 20);
			total_bytes = get_be64(h + 24);
			if (!n || n > MAX_STREAMS || opt.block < MIN_BLOCK || opt.block > MAX_BLOCK || !total_bytes) {
				lfn_err("protocol error: unusable parameters (streams %u, block %u, bytes %llu)", n,
					 opt.block, (unsigned long long)total_bytes);
				close(fd);
				return -1;
			}
			nblocks = (total_bytes + opt.block - 1) / opt.block;
			streams = calloc(nstreams, sizeof(*streams));
			if (!streams) {
				lfn_err("out of memory");
				close(fd);
				return -1;
			}
			for (r = 0; r < (int)nstreams; r++) {
				streams[r].fd = -1;
				streams[r].next = (uint64_t)r;
			}
		}
		if (get_be32(h + 8) != session || n != nstreams || idx >= nstreams || streams[idx].fd >= 0 ||
		    get_be32(h + 20) != opt.block || get_be64(h + 24) != total_bytes) {
			lfn_err("protocol error: stream %u does not belong to this transfer", idx);
			close(fd);
			return -1;
		}
		if (tune_socket(fd)) {
			close(fd);
			return -1;
		}
		set_nonblock(fd, 1);
		streams[idx].fd = fd;
		if (++got == nstreams)
			return 0;
	}
}

static int run_recv(void)
{
	struct sockaddr_storage ss;
	socklen_t slen;
	struct pollfd *p = NULL;
	uint8_t *ring = NULL, *ready = NULL, fin[FIN_LEN];
	uint64_t d = 0, elapsed = 0, peer_bytes = 0, idle_since, fin_got = 0;
	unsigned i, w = 0, *which = NULL, port;
	char sha[SHA256_HEX_LEN + 1], peer_sha[SHA256_HEX_LEN + 1], addr[64];
	const char *reason = "error";
	int lfd, status = 1, have_sha = 0, have_peer = 0, one = 1;

	hasher_init(&hash);
	ticker_start(&tick, 0, now_ns(CLOCK_MONOTONIC));
	parse_addr(opt.c.bind ? opt.c.bind : "0.0.0.0", opt.c.port, &ss, &slen);
	lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd >= 0) {
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* Set before listen() so accepted sockets inherit it (window scale is fixed at the handshake). */
		set_sockbuf(lfd, opt.sockbuf);
	}
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, slen) || listen(lfd, MAX_STREAMS)) {
		lfn_err("listen on %s port %u: %s", opt.c.bind ? opt.c.bind : "0.0.0.0", opt.c.port, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return 1;
	}
	getsockname(lfd, (struct sockaddr *)&ss, &slen);
	addr_to_str((struct sockaddr *)&ss, addr, sizeof(addr), &port);
	printf("# " PROG " v%d role=recv bind=%s port=%u sockbuf=%d cc=%s report_hz=%u\n", XFER_FORMAT_VERSION, addr,
	       port, opt.sockbuf, opt.cc ? opt.cc : "default", opt.c.report_hz);
	print_columns();
	if (out_flush())
		goto out;
	if (accept_streams(lfd))
		goto out;

	w = window_blocks();
	ring = malloc((size_t)w * opt.block);
	ready = calloc(w, 1);
	p = calloc(nstreams, sizeof(*p));
	which = calloc(nstreams, sizeof(*which));
	if (!ring || !ready || !p || !which) {
		lfn_err("out of memory for %u blocks of %u bytes", w, opt.block);
		goto out;
	}

	t_start = now_ns(CLOCK_MONOTONIC);
	ticker_start(&tick, opt.c.report_hz, t_start);
	maybe_row(t_start);
	idle_since = t_start;
	while (d < nblocks || fin_got < FIN_LEN) {
		uint64_t now;
		unsigned np = 0;
		int r;

		for (i = 0; i < nstreams; i++) {
			/* Read a stream only while its next block has a slot; stream 0 also brings the digest. */
			const struct stream *s = &streams[i];

			if ((s->next < nblocks && s->next < d + w) || (i == 0 && s->next >= nblocks && fin_got < FIN_LEN)) {
				p[np].fd = streams[i].fd;
				p[np].events = POLLIN;
				which[np++] = i;
			}
		}
		now = now_ns(CLOCK_MONOTONIC);
		maybe_row(now);
		if (lfn_stop_signal)
			goto out;
		if (idle_expired(now, idle_since)) {
			lfn_err("nothing from the sender for %.1f s", (double)opt.c.timeout_ns / 1e9);
			xfer_timed_out = 1;
			goto out;
		}
		r = poll(p, np, poll_ms(now, idle_since));
		if (r < 0 && errno != EINTR) {
			lfn_err("poll: %s", strerror(errno));
			goto out;
		}
		for (i = 0; r > 0 && i < np; i++) {
			struct stream *s = &streams[which[i]];
			uint64_t moved = 0;

			if (!p[i].revents)
				continue;
			while (moved < MAX_IO_PER_ROUND) {
				uint8_t *dst;
				size_t want;
				ssize_t n;

				if (s->next < nblocks) {
					if (s->next >= d + w)
						break;
					dst = ring + (size_t)(s->next % w) * opt.block + s->pos;
					want = (size_t)(block_len(s->next) - s->pos);
				} else if (which[i] == 0 && fin_got < FIN_LEN) {
					dst = fin + fin_got;
					want = (size_t)(FIN_LEN - fin_got);
				} else {
					break;
				}
				n = recv(s->fd, dst, want, MSG_DONTWAIT);
				if (n < 0) {
					if (errno == EAGAIN || errno == EINTR)
						break;
					lfn_err("stream %u: %s", which[i], strerror(errno));
					goto out;
				}
				if (n == 0) {
					lfn_err("stream %u: closed by the sender with data still due", which[i]);
					goto out;
				}
				moved += (uint64_t)n;
				if (s->next >= nblocks) {
					fin_got += (uint64_t)n;
					continue;
				}
				s->pos += (uint64_t)n;
				s->bytes += (uint64_t)n;
				io_bytes += (uint64_t)n;
				if (s->pos == block_len(s->next)) {
					ready[s->next % w] = 1;
					s->next += nstreams;
					s->pos = 0;
				}
			}
			if (moved)
				idle_since = now_ns(CLOCK_MONOTONIC);
		}
		/* Deliver (hash) whatever is complete at the front of the window. */
		while (d < nblocks && ready[d % w]) {
			const uint64_t len = block_len(d);

			hasher_update(&hash, ring + (size_t)(d % w) * opt.block, (size_t)len);
			in_order_bytes += len;
			ready[d % w] = 0;
			d++;
		}
		if (d == nblocks && !elapsed)
			elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	}
	maybe_row(now_ns(CLOCK_MONOTONIC));
	if (get_be32(fin) != FIN_MAGIC) {
		lfn_err("protocol error: bad digest message from the sender");
		goto out;
	}
	peer_bytes = get_be64(fin + 4);
	sha256_hex(fin + 12, peer_sha);
	have_peer = 1;
	hasher_final(&hash, fin + 12, sha);
	have_sha = 1;
	put_be64(fin + 4, in_order_bytes);
	set_nonblock(streams[0].fd, 0);
	if (write_full(streams[0].fd, fin, FIN_LEN, opt.c.timeout_ns, "stream 0"))
		goto out;
	reason = "done";
	status = strcmp(sha, peer_sha) || peer_bytes != in_order_bytes ? 3 : 0;
out:
	if (status == 1)
		reason = xfer_fail_reason();
	if (!elapsed && t_start)
		elapsed = now_ns(CLOCK_MONOTONIC) - t_start;
	print_end(reason, elapsed, have_sha ? sha : NULL, have_peer ? peer_sha : NULL, peer_bytes, in_order_bytes);
	if (out_flush())
		status = 1;
	for (i = 0; streams && i < nstreams; i++)
		if (streams[i].fd >= 0)
			close(streams[i].fd);
	close(lfd);
	free(streams);
	free(ring);
	free(ready);
	free(p);
	free(which);
	return status;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --recv [--bind ADDR] [--port P] [OPTIONS]\n"
		"       " PROG " --send --connect ADDR [--port P] --streams N (--bytes N | --file PATH) [OPTIONS]\n"
		"       " PROG " --digest (--bytes N [--seed S] | --file PATH)\n"
		"PSockets-style striping: the payload is cut into blocks and block b travels on TCP connection\n"
		"b mod N, so N connections each carry every N-th block; the receiver reassembles the blocks in\n"
		"order. Both sides print the SHA-256 of the payload and whether the peer's matches.\n"
		"\n");
	common_usage(f, DEFAULT_PORT);
	fprintf(f,
		"Striping options:\n"
		"  --streams N         (send) parallel TCP connections, 1..%u (default %u; 1 = plain TCP)\n"
		"  --block BYTES       (send) stripe unit, %u..%u bytes (default %u; suffixes as for --bytes)\n"
		"  --window BLOCKS     blocks this side buffers for striping/reassembly, >= 1 (default 4 per\n"
		"                      stream, at least %u); a stream more than a window ahead of the slowest\n"
		"                      one waits\n"
		"  --sockbuf BYTES     SO_SNDBUF and SO_RCVBUF of every connection, set with the FORCE options\n"
		"                      as root; fixes the window and turns autotuning off (default 0 = autotune)\n"
		"  --cc NAME           TCP congestion control of every connection on this side (default: the\n"
		"                      namespace's)\n"
		"\n"
		"Output (v%d), on stdout: a '# " PROG " v%d role=...' header with the settings (the receiver's\n"
		"has the actual port), a '#tick...' line naming the columns, then tab-separated progress rows,\n"
		"due at start + k/HZ on CLOCK_MONOTONIC from the start of the transfer (all streams connected):\n"
		"  tick                row slot k (a gap = slots skipped while busy)\n"
		"  mono_ns             CLOCK_MONOTONIC when written, ns\n"
		"  elapsed_ns          since the start of the transfer, ns\n"
		"  bytes               payload bytes written to (send) / read from (recv) the sockets, all streams\n"
		"  interval_bps        bits/s of bytes since the previous row (0 in the first row)\n"
		"  avg_bps             bits/s of bytes since the start\n",
		MAX_STREAMS, DEFAULT_STREAMS, MIN_BLOCK, MAX_BLOCK, DEFAULT_BLOCK, MIN_WINDOW, XFER_FORMAT_VERSION,
		XFER_FORMAT_VERSION);
#define HELP_COL(name, doc) fprintf(f, "  %-19s %s\n", #name, doc);
	ROW_COLUMNS(HELP_COL)
#undef HELP_COL
	fprintf(f,
		"Last line (tab-separated key=value):\n"
		"  #end reason=done|error|timeout|signal role=send|recv bytes=N elapsed_ns=N avg_bps=N\n"
		"       sha256=HEX|- peer_sha256=HEX|- peer_bytes=N match=1|0|- streams=N block=N window=N\n"
		"       rows=N skipped_rows=N hash_ns=N sha256_impl=shani|c user_ns=N sys_ns=N\n"
		"  bytes = payload bytes written (send) / reassembled in order and hashed (recv); elapsed_ns =\n"
		"  start to the receiver's digest arriving (send) / to the last block reassembled (recv);\n"
		"  sha256 = this side's digest of the payload, peer_sha256 and peer_bytes = the other side's;\n"
		"  window = blocks buffered; hash_ns = CPU time spent in SHA-256; user_ns/sys_ns = CPU time of\n"
		"  the process (getrusage).\n"
		"\n"
		"Exit status: 0 transfer verified, 3 transfer completed but the digests differ, 1 runtime\n"
		"error, timeout or signal, 2 bad usage.\n");
}

static int parse_args(int argc, char **argv)
{
	enum { OPT_STREAMS = OPT_PROGRAM, OPT_BLOCK, OPT_WINDOW, OPT_SOCKBUF, OPT_CC };
	static const struct option longopts[] = {
		COMMON_LONGOPTS,
		{ "streams", required_argument, NULL, OPT_STREAMS },
		{ "block", required_argument, NULL, OPT_BLOCK },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "sockbuf", required_argument, NULL, OPT_SOCKBUF },
		{ "cc", required_argument, NULL, OPT_CC },
		{ NULL, 0, NULL, 0 },
	};
	int c, streams_given = 0, block_given = 0;

	common_defaults(&opt.c, DEFAULT_PORT);
	opt.streams = DEFAULT_STREAMS;
	opt.block = DEFAULT_BLOCK;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		uint64_t v;
		int r = common_option(&opt.c, c, optarg);

		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_STREAMS:
			if (parse_u64(optarg, 1, MAX_STREAMS, &v)) {
				fprintf(stderr, PROG ": --streams must be 1..%u (got '%s')\n", MAX_STREAMS, optarg);
				return -1;
			}
			opt.streams = (unsigned)v;
			streams_given = 1;
			break;
		case OPT_BLOCK:
			if (parse_scaled(optarg, MIN_BLOCK, MAX_BLOCK, &v)) {
				fprintf(stderr, PROG ": --block must be %u..%u bytes (got '%s')\n", MIN_BLOCK, MAX_BLOCK,
					optarg);
				return -1;
			}
			opt.block = (unsigned)v;
			block_given = 1;
			break;
		case OPT_WINDOW:
			if (parse_u64(optarg, 1, 1u << 20, &v)) {
				fprintf(stderr, PROG ": --window must be 1..1048576 blocks (got '%s')\n", optarg);
				return -1;
			}
			opt.window = (unsigned)v;
			break;
		case OPT_SOCKBUF:
			if (parse_scaled(optarg, 0, 1u << 30, &v)) {
				fprintf(stderr, PROG ": --sockbuf must be 0..1Gi bytes (got '%s')\n", optarg);
				return -1;
			}
			opt.sockbuf = (int)v;
			break;
		case OPT_CC:
			if (!*optarg || strlen(optarg) >= 16) {
				fprintf(stderr, PROG ": --cc needs a congestion control name (got '%s')\n", optarg);
				return -1;
			}
			opt.cc = optarg;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, XFER_FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	if (common_check(&opt.c))
		return -1;
	if (opt.c.role == ROLE_RECV && (streams_given || block_given)) {
		fprintf(stderr, PROG ": --streams and --block are for --send; the receiver takes the sender's\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	return xfer_main(argc, argv, PROG, &opt.c, parse_args, MAX_STREAMS + 64, run_send, run_recv);
}
