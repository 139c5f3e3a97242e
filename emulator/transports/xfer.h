/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pieces shared by the lfn-rbudp, lfn-psockets and lfn-udt bulk-transfer
 * programs: the deterministic payload, option parsing helpers, addresses,
 * clocks and report ticks, timed hashing, and the key=value record writer.
 */
#ifndef LFN_XFER_H
#define LFN_XFER_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include "lfn_common.h"
#include "sha256.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XFER_FORMAT_VERSION 1

/* ---- clocks ---- */
/* Sleeps on CLOCK_MONOTONIC until the absolute time t (ns); returns early (nonzero) on a signal. */
int sleep_until(uint64_t t);

/* ---- payload source ----
 * The generated payload is a pure function of (seed, byte offset): 64-bit
 * word i (little-endian, at offset 8i) is splitmix64's output for
 * seed + (i + 1) * 0x9e3779b97f4a7c15. Any slice can be produced on its own,
 * which is what striping and retransmission need.
 */
struct source {
	int fd;	       /* --file, or -1 for the generated payload */
	uint64_t seed;
	uint64_t size; /* bytes to transfer */
};

void payload_fill(uint64_t seed, uint64_t off, void *buf, size_t len);
/* Opens the source: a file (size = file size unless bytes > 0 asks for less) or the generated payload. */
int source_open(struct source *src, const char *path, uint64_t bytes, uint64_t seed);
/* Fills buf with len bytes at offset off; 0 or -1 (error printed). */
int source_read(const struct source *src, uint64_t off, void *buf, size_t len);

/* ---- option parsing ---- */
/* Integer with optional k/M/G/T (x1000) or Ki/Mi/Gi/Ti (x1024) suffix; 0 ok, -1 bad. */
int parse_scaled(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds (fractions allowed) 0..1e7 to ns. */
int parse_seconds(const char *s, uint64_t *out_ns);
/* Numeric IPv4/IPv6 literal plus port (no name lookup: the binaries are static). */
int parse_addr(const char *host, unsigned port, struct sockaddr_storage *ss, socklen_t *len);
void addr_to_str(const struct sockaddr *sa, char *buf, size_t len, unsigned *port);
/*
 * `--digest`: prints "#digest<TAB>sha256=HEX<TAB>bytes=N" for the generated
 * payload (bytes, seed) or a file ('-' = stdin, read to EOF unless bytes > 0
 * limits it). Returns the exit status.
 */
int run_digest(const char *path, uint64_t bytes, uint64_t seed);

/* ---- options every program shares ---- */
enum role { ROLE_NONE, ROLE_SEND, ROLE_RECV };

struct common_opts {
	enum role role;
	const char *connect; /* --send: receiver address */
	const char *bind;    /* --recv: listen address */
	unsigned port;
	uint64_t bytes, seed;
	const char *file;
	unsigned report_hz;
	uint64_t timeout_ns;
	int digest;
};

enum {
	OPT_SEND = 1000,
	OPT_RECV,
	OPT_CONNECT,
	OPT_BIND,
	OPT_PORT,
	OPT_BYTES,
	OPT_SEED,
	OPT_FILE,
	OPT_REPORT,
	OPT_TIMEOUT,
	OPT_DIGEST,
	OPT_HELP,
	OPT_VERSION,
	OPT_PROGRAM /* first id free for a program's own options */
};

/* Entries for a program's getopt_long table (follow with its own and the terminator). */
#define COMMON_LONGOPTS                                         \
	{ "send", no_argument, NULL, OPT_SEND },                \
	{ "recv", no_argument, NULL, OPT_RECV },                \
	{ "connect", required_argument, NULL, OPT_CONNECT },    \
	{ "bind", required_argument, NULL, OPT_BIND },          \
	{ "port", required_argument, NULL, OPT_PORT },          \
	{ "bytes", required_argument, NULL, OPT_BYTES },        \
	{ "seed", required_argument, NULL, OPT_SEED },          \
	{ "file", required_argument, NULL, OPT_FILE },          \
	{ "report", required_argument, NULL, OPT_REPORT },      \
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },    \
	{ "digest", no_argument, NULL, OPT_DIGEST },            \
	{ "help", no_argument, NULL, OPT_HELP },                \
	{ "version", no_argument, NULL, OPT_VERSION }

void common_defaults(struct common_opts *o, unsigned default_port);
/* 1 = handled, 0 = not a common option, -1 = bad value (message printed). */
int common_option(struct common_opts *o, int c, const char *arg);
/* Checks the combination after parsing; -1 (message printed) if unusable. */
int common_check(const struct common_opts *o);
void common_usage(FILE *f, unsigned default_port);
/*
 * A transport's whole main(): sets lfn_prog, parse_args (which fills *o; nonzero = bad usage, exit
 * status 2), then --digest, or the process setup (with at least want_fds descriptors; 0 = as is) and
 * the run of o's role. Returns the exit status.
 */
int xfer_main(int argc, char **argv, const char *prog, const struct common_opts *o, int (*parse_args)(int, char **),
	      unsigned want_fds, int (*run_send)(void), int (*run_recv)(void));

/* ---- signals and output ---- */
/* Set when a wait for the peer ran past --timeout (by the helpers below or by a program). */
extern volatile sig_atomic_t xfer_timed_out;
/* The #end reason of a failed run: "signal", "timeout" or "error". */
const char *xfer_fail_reason(void);
/* SIGINT/SIGTERM set lfn_stop_signal; SIGPIPE ignored; stdout made blocking and fully buffered. */
void xfer_setup_process(void);
/* Raises RLIMIT_NOFILE's soft limit to at least n (up to the hard limit). */
void xfer_want_fds(unsigned n);

/* ---- sockets ---- */
/* Blocking full read/write with an idle timeout (0 = none); 0 ok, -1 error/EOF/timeout/stop (printed). */
int read_full(int fd, void *buf, size_t len, uint64_t timeout_ns, const char *what);
int write_full(int fd, const void *buf, size_t len, uint64_t timeout_ns, const char *what);
/* Waits for fd to be readable; 1 ready, 0 timeout/stop (stop sets no error), -1 error. */
int wait_readable(int fd, uint64_t timeout_ns);
void set_nonblock(int fd, int on);
void set_sockbuf(int fd, int bytes);

/* ---- hashing with its CPU cost accounted ---- */
struct hasher {
	struct sha256 sha;
	uint64_t cpu_ns; /* thread CPU time spent inside SHA-256 */
	uint64_t bytes;
};
void hasher_init(struct hasher *h);
void hasher_update(struct hasher *h, const void *p, size_t len);
/* Finishes the digest: raw bytes (may be NULL) and lower-case hex. */
void hasher_final(struct hasher *h, uint8_t digest[SHA256_DIGEST_LEN], char hex[SHA256_HEX_LEN + 1]);

/* ---- report ticks: row k is due at t0 + k / hz on CLOCK_MONOTONIC ---- */
struct ticker {
	unsigned hz; /* 0 = no rows */
	uint64_t t0;
	uint64_t k; /* next row */
	uint64_t rows, skipped;
	uint64_t last_ns, last_bytes;
};
void ticker_start(struct ticker *t, unsigned hz, uint64_t t0);
/* ns until the next row is due (0 = now), UINT64_MAX when no rows are wanted. */
uint64_t ticker_wait_ns(const struct ticker *t, uint64_t now);
/*
 * If a row is due: advances (slots missed while the caller was busy are
 * skipped and counted), fills tick, now, interval/average rates in bits/s,
 * and returns 1. bytes is the program's progress counter.
 */
struct tick_row {
	uint64_t tick, mono_ns, elapsed_ns, bytes, interval_bps, avg_bps;
};
int ticker_due(struct ticker *t, uint64_t now, uint64_t bytes, struct tick_row *row);
/* Writes the six common columns, without a line end. */
void print_tick_prefix(const struct tick_row *r);
uint64_t rate_bps(uint64_t bytes, uint64_t ns);

/* ---- records ---- */
/* "\tkey=value" pieces for #end and #round lines. */
void kv_u64(const char *key, uint64_t v);
void kv_str(const char *key, const char *v);
/* Appends user_ns and sys_ns of the whole process (all threads), from getrusage. */
void kv_rusage(void);
/* Flushes stdout; on failure prints the reason to stderr and returns -1. */
int out_flush(void);

#ifdef __cplusplus
}
#endif

#endif
