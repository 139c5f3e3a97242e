// SPDX-License-Identifier: GPL-2.0-only
/* Shared pieces of the lfn bulk-transfer programs; see xfer.h. */
#define _GNU_SOURCE
#include "xfer.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

volatile sig_atomic_t xfer_timed_out;

static char stdout_buf[1 << 16];

const char *xfer_fail_reason(void)
{
	return lfn_stop_signal ? "signal" : xfer_timed_out ? "timeout" : "error";
}

/* ---- clocks ---- */

int sleep_until(uint64_t t)
{
	struct timespec ts = ns_to_timespec(t);

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* ---- payload ---- */

static inline uint64_t payload_word(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void payload_fill(uint64_t seed, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;
	uint64_t i = off / 8, w;
	size_t skip = (size_t)(off % 8);

	if (skip && len) {
		size_t n = 8 - skip < len ? 8 - skip : len;

		w = htole64(payload_word(seed, i++));
		memcpy(p, (uint8_t *)&w + skip, n);
		p += n;
		len -= n;
	}
	for (; len >= 8; len -= 8, p += 8) {
		w = htole64(payload_word(seed, i++));
		memcpy(p, &w, 8);
	}
	if (len) {
		w = htole64(payload_word(seed, i));
		memcpy(p, &w, len);
	}
}

int source_open(struct source *src, const char *path, uint64_t bytes, uint64_t seed)
{
	struct stat st;

	src->fd = -1;
	src->seed = seed;
	src->size = bytes;
	if (!path) {
		if (!bytes) {
			lfn_err("give --bytes N (generated payload) or --file PATH");
			return -1;
		}
		return 0;
	}
	src->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0 || fstat(src->fd, &st)) {
		lfn_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		lfn_err("%s: not a regular file", path);
		return -1;
	}
	if (bytes > (uint64_t)st.st_size) {
		lfn_err("%s has %lld bytes, fewer than --bytes %llu", path, (long long)st.st_size,
			 (unsigned long long)bytes);
		return -1;
	}
	src->size = bytes ? bytes : (uint64_t)st.st_size;
	if (!src->size) {
		lfn_err("%s is empty", path);
		return -1;
	}
	return 0;
}

int source_read(const struct source *src, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (src->fd < 0) {
		payload_fill(src->seed, off, buf, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(src->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lfn_err("reading the payload file at offset %llu: %s", (unsigned long long)off,
				 n ? strerror(errno) : "file shrank");
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int run_digest(const char *path, uint64_t bytes, uint64_t seed)
{
	static uint8_t buf[1 << 20];
	struct hasher h;
	char hex[SHA256_HEX_LEN + 1];
	uint64_t off = 0;
	int fd = -1;

	if (path) {
		fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
		if (fd < 0) {
			lfn_err("%s: %s", path, strerror(errno));
			return 1;
		}
	} else if (!bytes) {
		lfn_err("--digest needs --bytes N (generated payload) or --file PATH");
		return 2;
	}
	hasher_init(&h);
	for (;;) {
		size_t want = sizeof(buf);
		ssize_t n;

		if (bytes && bytes - off < want)
			want = (size_t)(bytes - off);
		if (bytes && !want)
			break;
		if (fd < 0) {
			payload_fill(seed, off, buf, want);
			n = (ssize_t)want;
		} else {
			n = read(fd, buf, want);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				lfn_err("read: %s", strerror(errno));
				return 1;
			}
			if (!n)
				break;
		}
		hasher_update(&h, buf, (size_t)n);
		off += (uint64_t)n;
	}
	hasher_final(&h, NULL, hex);
	printf("#digest\tsha256=%s\tbytes=%llu\tsha256_impl=%s\n", hex, (unsigned long long)off, sha256_impl());
	return out_flush() ? 1 : 0;
}

/* ---- common options ---- */

void common_defaults(struct common_opts *o, unsigned default_port)
{
	memset(o, 0, sizeof(*o));
	o->port = default_port;
	o->seed = 1;
	o->report_hz = 10;
	o->timeout_ns = 60 * NSEC_PER_SEC;
}

int common_option(struct common_opts *o, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case OPT_SEND:
	case OPT_RECV:
		if (o->role) {
			lfn_err("give only one of --send and --recv");
			return -1;
		}
		o->role = c == OPT_SEND ? ROLE_SEND : ROLE_RECV;
		return 1;
	case OPT_CONNECT:
		o->connect = arg;
		return 1;
	case OPT_BIND:
		o->bind = arg;
		return 1;
	case OPT_PORT:
		if (parse_u64(arg, 0, 65535, &v)) {
			lfn_err("--port must be 0..65535 (got '%s')", arg);
			return -1;
		}
		o->port = (unsigned)v;
		return 1;
	case OPT_BYTES:
		if (parse_scaled(arg, 1, UINT64_MAX, &v)) {
			lfn_err("--bytes must be a byte count >= 1, suffixes k M G T (x1000) or Ki Mi Gi Ti (got '%s')",
				 arg);
			return -1;
		}
		o->bytes = v;
		return 1;
	case OPT_SEED:
		if (parse_u64(arg, 0, UINT64_MAX, &v)) {
			lfn_err("--seed must be an integer 0..2^64-1 (got '%s')", arg);
			return -1;
		}
		o->seed = v;
		return 1;
	case OPT_FILE:
		o->file = arg;
		return 1;
	case OPT_REPORT:
		if (parse_u64(arg, 0, 1000, &v)) {
			lfn_err("--report must be an integer 0..1000 rows per second (got '%s')", arg);
			return -1;
		}
		o->report_hz = (unsigned)v;
		return 1;
	case OPT_TIMEOUT:
		if (parse_seconds(arg, &o->timeout_ns)) {
			lfn_err("--timeout must be seconds >= 0 (got '%s')", arg);
			return -1;
		}
		return 1;
	case OPT_DIGEST:
		o->digest = 1;
		return 1;
	default:
		return 0;
	}
}

int common_check(const struct common_opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (o->digest)
		return 0;
	if (o->role == ROLE_NONE) {
		lfn_err("give --send or --recv (or --digest); see --help");
		return -1;
	}
	if (o->role == ROLE_SEND) {
		if (!o->connect) {
			lfn_err("--send needs --connect ADDR");
			return -1;
		}
		if (parse_addr(o->connect, o->port, &ss, &len)) {
			lfn_err("--connect needs a numeric IPv4 or IPv6 address (got '%s')", o->connect);
			return -1;
		}
		if (!o->port) {
			lfn_err("--send needs --port 1..65535");
			return -1;
		}
		if (o->bind) {
			lfn_err("--bind is for --recv");
			return -1;
		}
		if (!o->file && !o->bytes) {
			lfn_err("--send needs --bytes N (generated payload) or --file PATH");
			return -1;
		}
	} else {
		if (o->connect) {
			lfn_err("--connect is for --send");
			return -1;
		}
		if (o->file || o->bytes) {
			lfn_err("--bytes/--file are for --send; the receiver learns the size from the sender");
			return -1;
		}
		if (o->bind && parse_addr(o->bind, o->port, &ss, &len)) {
			lfn_err("--bind needs a numeric IPv4 or IPv6 address (got '%s')", o->bind);
			return -1;
		}
	}
	return 0;
}

void common_usage(FILE *f, unsigned default_port)
{
	fprintf(f,
		"Roles (one is required):\n"
		"  --recv              listen, receive one transfer, verify it, exit\n"
		"  --send              connect to a receiver and send the payload\n"
		"Common options:\n"
		"  --connect ADDR      (send) receiver's numeric IPv4/IPv6 address\n"
		"  --bind ADDR         (recv) numeric address to listen on (default 0.0.0.0; '::' for IPv6)\n"
		"  --port P            port, 0..65535 (default %u; recv: 0 = any free port, printed in the header)\n"
		"  --bytes N           (send) payload size in bytes; suffixes k M G T (x1000), Ki Mi Gi Ti (x1024).\n"
		"                      Without --file the payload is generated from --seed; with --file, N bytes\n"
		"                      of the file (default: all of it)\n"
		"  --seed S            (send) seed of the generated payload, 0..2^64-1 (default 1)\n"
		"  --file PATH         (send) send this regular file instead of generated bytes\n"
		"  --report HZ         progress rows per second, 0..1000 (default 10; 0 = none)\n"
		"  --timeout SECONDS   give up after this long without progress, incl. waiting for the peer;\n"
		"                      fractions allowed, 0 = never (default 60)\n"
		"  --digest            print '#digest<TAB>sha256=HEX<TAB>bytes=N' of the --bytes/--seed payload or\n"
		"                      of --file ('-' = stdin) and exit, without any network\n"
		"  --help              this text\n"
		"  --version           print the output format version\n",
		default_port);
}

int xfer_main(int argc, char **argv, const char *prog, const struct common_opts *o, int (*parse_args)(int, char **),
	      unsigned want_fds, int (*run_send)(void), int (*run_recv)(void))
{
	lfn_prog = prog;
	if (parse_args(argc, argv))
		return 2;
	if (o->digest)
		return run_digest(o->file, o->bytes, o->seed);
	xfer_setup_process();
	if (want_fds)
		xfer_want_fds(want_fds);
	return o->role == ROLE_SEND ? run_send() : run_recv();
}

/* ---- option parsing ---- */

int parse_scaled(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1, base = 1000;
	int exp = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		exp = 1;
		break;
	case 'M':
		exp = 2;
		break;
	case 'G':
		exp = 3;
		break;
	case 'T':
		exp = 4;
		break;
	default:
		return -1;
	}
	if (exp) {
		end++;
		if (*end == 'i') {
			base = 1024;
			end++;
		}
	}
	if (*end)
		return -1;
	while (exp--)
		mul *= base;
	if (v > UINT64_MAX / mul)
		return -1;
	v *= mul;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, uint64_t *out_ns)
{
	double d;

	if (parse_double(s, 0, 1e7, &d))
		return -1;
	*out_ns = (uint64_t)llround(d * 1e9);
	return 0;
}

int parse_addr(const char *host, unsigned port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(host, ':')) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return inet_pton(AF_INET6, host, &a6->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return inet_pton(AF_INET, host, &a4->sin_addr) == 1 ? 0 : -1;
	}
}

void addr_to_str(const struct sockaddr *sa, char *buf, size_t len, unsigned *port)
{
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &a6->sin6_addr, buf, (socklen_t)len);
		*port = ntohs(a6->sin6_port);
	} else {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &a4->sin_addr, buf, (socklen_t)len);
		*port = ntohs(a4->sin_port);
	}
}

/* ---- process set-up ---- */

void xfer_setup_process(void)
{
	lfn_catch_stop_signals(LFN_SIG_RESTART | LFN_SIG_IGNORE_PIPE);
	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));
	lfn_tight_timer_slack();
}

void xfer_want_fds(unsigned n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= n)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n ? n : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/* ---- sockets ---- */

int wait_readable(int fd, uint64_t timeout_ns)
{
	const uint64_t deadline = timeout_ns ? now_ns(CLOCK_MONOTONIC) + timeout_ns : 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int ms = -1, r;

		if (lfn_stop_signal)
			return 0;
		if (deadline) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (now >= deadline) {
				xfer_timed_out = 1;
				return 0;
			}
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r > 0)
			return 1;
	}
}

static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int ms = -1, r;

		if (lfn_stop_signal)
			return 0;
		if (deadline) {
			uint64_t now = now_ns(CLOCK_MONOTONIC);

			if (now >= deadline)
				return 0;
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 0)
			return r;
	}
}

static int io_full(int fd, void *buf, size_t len, uint64_t timeout_ns, const char *what, int writing)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t deadline = timeout_ns ? now_ns(CLOCK_MONOTONIC) + timeout_ns : 0;
		ssize_t n;
		int r = wait_fd(fd, writing ? POLLOUT : POLLIN, deadline);

		if (r < 0) {
			lfn_err("%s: poll: %s", what, strerror(errno));
			return -1;
		}
		if (r == 0) {
			if (!lfn_stop_signal) {
				xfer_timed_out = 1;
				lfn_err("%s: timed out", what);
			}
			return -1;
		}
		n = writing ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			lfn_err("%s: %s", what, strerror(errno));
			return -1;
		}
		if (n == 0) {
			lfn_err("%s: connection closed by the peer", what);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int read_full(int fd, void *buf, size_t len, uint64_t timeout_ns, const char *what)
{
	return io_full(fd, buf, len, timeout_ns, what, 0);
}

int write_full(int fd, const void *buf, size_t len, uint64_t timeout_ns, const char *what)
{
	return io_full(fd, (void *)buf, len, timeout_ns, what, 1);
}

void set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

void set_sockbuf(int fd, int bytes)
{
	if (bytes <= 0)
		return;
	/* The FORCE variants pass net.core.[rw]mem_max (root only); fall back to the capped ones. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

/* ---- hashing ---- */

void hasher_init(struct hasher *h)
{
	sha256_init(&h->sha);
	h->cpu_ns = 0;
	h->bytes = 0;
}

void hasher_update(struct hasher *h, const void *p, size_t len)
{
	const uint64_t t = now_ns(CLOCK_THREAD_CPUTIME_ID);

	sha256_update(&h->sha, p, len);
	h->bytes += len;
	h->cpu_ns += now_ns(CLOCK_THREAD_CPUTIME_ID) - t;
}

void hasher_final(struct hasher *h, uint8_t digest[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1])
{
	uint8_t d[SHA256_DIGEST_LEN];

	sha256_final(&h->sha, d);
	sha256_hex(d, hex);
	if (digest)
		memcpy(digest, d, sizeof(d));
}

/* ---- ticks ---- */

uint64_t rate_bps(uint64_t bytes, uint64_t ns)
{
	return ns ? (uint64_t)llround((double)bytes * 8e9 / (double)ns) : 0;
}

void ticker_start(struct ticker *t, unsigned hz, uint64_t t0)
{
	memset(t, 0, sizeof(*t));
	t->hz = hz;
	t->t0 = t0;
	t->last_ns = t0;
}

static uint64_t slot_start(const struct ticker *t, uint64_t k)
{
	return t->t0 + k * NSEC_PER_SEC / t->hz;
}

uint64_t ticker_wait_ns(const struct ticker *t, uint64_t now)
{
	uint64_t due;

	if (!t->hz)
		return UINT64_MAX;
	due = slot_start(t, t->k);
	return due > now ? due - now : 0;
}

int ticker_due(struct ticker *t, uint64_t now, uint64_t bytes, struct tick_row *row)
{
	uint64_t cur;

	if (!t->hz || now < slot_start(t, t->k))
		return 0;
	/* Report the slot that contains now; the ones passed over while busy are skipped. */
	cur = (now - t->t0) * t->hz / NSEC_PER_SEC;
	if (cur < t->k)
		cur = t->k;
	t->skipped += cur - t->k;
	row->tick = cur;
	row->mono_ns = now;
	row->elapsed_ns = now - t->t0;
	row->bytes = bytes;
	row->interval_bps = t->rows ? rate_bps(bytes - t->last_bytes, now - t->last_ns) : 0;
	row->avg_bps = rate_bps(bytes, now - t->t0);
	t->k = cur + 1;
	t->rows++;
	t->last_ns = now;
	t->last_bytes = bytes;
	return 1;
}

void print_tick_prefix(const struct tick_row *r)
{
	printf("%llu\t%llu\t%llu\t%llu\t%llu\t%llu", (unsigned long long)r->tick, (unsigned long long)r->mono_ns,
	       (unsigned long long)r->elapsed_ns, (unsigned long long)r->bytes,
	       (unsigned long long)r->interval_bps, (unsigned long long)r->avg_bps);
}

/* ---- records ---- */

void kv_u64(const char *key, uint64_t v)
{
	printf("\t%s=%llu", key, (unsigned long long)v);
}

void kv_str(const char *key, const char *v)
{
	printf("\t%s=%s", key, v);
}

void kv_rusage(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		memset(&ru, 0, sizeof(ru));
	kv_u64("user_ns", (uint64_t)ru.ru_utime.tv_sec * NSEC_PER_SEC + (uint64_t)ru.ru_utime.tv_usec * 1000);
	kv_u64("sys_ns", (uint64_t)ru.ru_stime.tv_sec * NSEC_PER_SEC + (uint64_t)ru.ru_stime.tv_usec * 1000);
}

int out_flush(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: writing stdout failed: %s\n", lfn_prog, strerror(errno));
		return -1;
	}
	return 0;
}
