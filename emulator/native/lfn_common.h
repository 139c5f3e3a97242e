/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * liblfn: the one copy of what every native lab program needs (lfn-tcpsampler,
 * lfn-qdiscstat, lfn-pkttiming, lfn-udpgen, lfn-udpsink, lfn-rbudp, lfn-psockets,
 * lfn-udt): clocks, stderr messages, stop signals, a blocking stdout, the
 * samplers' tick schedule and end record, fast number formatting for output
 * lines, option values, --help/--version and the end of argv, and big-endian
 * integers on the wire (netlink dump ends: lfn_netlink.h). Each Makefile
 * includes lfn.mk, which compiles lfn_common.c into its static binaries; a fix
 * here reaches all of them. Output formats stay each program's own.
 */
#ifndef LFN_COMMON_H
#define LFN_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NSEC_PER_SEC 1000000000ULL

/* The program's name for messages ("lfn-udpgen"); each main() sets it before anything is printed. */
extern const char *lfn_prog;

/* ---- clocks ---- */
uint64_t now_ns(clockid_t clk);
struct timespec ns_to_timespec(uint64_t ns);

/* ---- messages on stderr, each "PROG: text\n" ---- */
void lfn_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* lfn_err, then exit(status). */
void lfn_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/*
 * For errors that can repeat every tick: prints while seen <= max, and the message at
 * seen == max ends with `note` (e.g. " (further errors are only counted)"); seen is the
 * number of such errors before this one.
 */
void lfn_err_capped(uint64_t seen, uint64_t max, const char *note, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- stop signals ---- */
/* The number of the SIGINT/SIGTERM that asked the program to stop; 0 until then. */
extern volatile sig_atomic_t lfn_stop_signal;
enum {
	/*
	 * Restart interrupted system calls: a blocked stdout write then never fails with EINTR
	 * (stdio would drop its buffer). poll() and clock_nanosleep() are never restarted, so
	 * loops built on them still see the signal at once.
	 */
	LFN_SIG_RESTART = 1,
	/* Ignore SIGPIPE, so a vanished reader is a write error, not a silent death. */
	LFN_SIG_IGNORE_PIPE = 2,
};
/* SIGINT and SIGTERM set lfn_stop_signal; flags are LFN_SIG_* or'ed. */
void lfn_catch_stop_signals(int flags);

/*
 * stdout blocking and fully buffered in buf: an inherited O_NONBLOCK would make stdio fail
 * with EAGAIN and lose data under back-pressure, where the writer should wait instead.
 */
void lfn_stdout_blocking(char *buf, size_t size);
/* 1 us timer slack: pacing sleeps are microseconds long, and the default 50 us would swamp them. */
void lfn_tight_timer_slack(void);

/* ---- fixed-rate ticks (the samplers) ---- */
/*
 * Slot k (k < n) starts at t0 + k * 1e9 / hz on CLOCK_MONOTONIC; integer maths, so slots never
 * drift. A tick whose work ends after the next slot began counts as late; the slots it overran
 * are skipped (counted) and the next tick is the current slot.
 */
struct lfn_slots {
	unsigned hz;
	uint64_t t0;
	uint64_t n; /* slots in the run; UINT64_MAX = until stopped */
};
/* Starts the schedule now; duration_ns 0 = no end. */
void lfn_slots_start(struct lfn_slots *s, unsigned hz, uint64_t duration_ns);
/* Sleeps until slot k starts: 0, EINTR on a signal, or another clock_nanosleep error. */
int lfn_slots_sleep(const struct lfn_slots *s, uint64_t k);
/* The slot to run after slot k's work ended at done (CLOCK_MONOTONIC); adds to *late and *skipped. */
uint64_t lfn_slots_next(const struct lfn_slots *s, uint64_t k, uint64_t done, uint64_t *late, uint64_t *skipped);
/*
 * The end record of a run whose stdout may have failed: print_end to stdout, or, once stdout has
 * failed (out_errno, else errno, says why), the reason on stderr and the record there, for the
 * counters must still reach someone. Returns 1 when stdout failed, else 0.
 */
int lfn_end_record(void (*print_end)(FILE *f, const char *reason, uint64_t elapsed_ns), const char *reason,
		   uint64_t elapsed_ns, int out_errno);

/* Options both samplers take alike; each prints its error ("--hz must be ...") and returns -1 if bad. */
enum out_format { FMT_TSV, FMT_JSONL };
int lfn_opt_hz(const char *arg, unsigned *hz);			 /* --hz N, 1..100 ticks per second */
int lfn_opt_duration(const char *arg, double *s, uint64_t *ns); /* --duration S, 0..1e7 s, fractions allowed */
int lfn_opt_format(const char *arg, enum out_format *format);	 /* --format tsv|jsonl */

/* ---- text output without printf (printf per field dominates a sampler's CPU time) ---- */
/* Each writes at p and returns the end; the caller sizes the buffer. Inline: called per field. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *fmt_hex32(char *p, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[8];
	int n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *fmt_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline char *fmt_str(char *p, const char *s)
{
	return fmt_mem(p, s, strlen(s));
}

#define FMT_LIT(p, s) fmt_mem((p), (s), sizeof(s) - 1)

/* ---- option values and the end of argv ---- */
/* Decimal integer in [min, max]: no sign, no spaces, no suffix. 0 ok, -1 bad. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A finite decimal number in [min, max]. 0 ok, -1 bad. */
int parse_double(const char *s, double min, double max, double *out);
/* A bad option value: "PROG: what (got 'ARG')", ARG cut at 60 characters; returns -1. */
int lfn_bad_value(const char *what, const char *arg);
/* After getopt_long reported an unknown option (it has named it): "Try 'PROG --help'.". */
void lfn_try_help(void);
/*
 * The default: branch of a program's getopt_long switch, for the options every program answers
 * alike: help_id prints usage on stdout and exits 0; version_id prints "PROG output format vN" and
 * exits 0; anything else is an option getopt_long rejected, so lfn_try_help() and -1.
 */
int lfn_other_option(int c, int help_id, int version_id, void (*usage)(FILE *f), int format_version);
/* -1 (message printed) if argv has operands left at optind; these programs take none. */
int lfn_no_operands(int argc, char **argv);

/* ---- big-endian integers in protocol messages ---- */
/* Inline: called per datagram. */
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

#ifdef __cplusplus
}
#endif

#endif
