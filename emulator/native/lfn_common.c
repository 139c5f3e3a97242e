// SPDX-License-Identifier: GPL-2.0-only
/* The shared layer of the native lab programs; see lfn_common.h. */
#define _GNU_SOURCE
#include "lfn_common.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/prctl.h>

const char *lfn_prog = "lfn";
volatile sig_atomic_t lfn_stop_signal;

/* ---- clocks ---- */

uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts.tv_nsec = (long)(ns % NSEC_PER_SEC);
	return ts;
}

/* ---- messages ---- */

static void vmsg(const char *fmt, va_list ap, const char *note)
{
	fprintf(stderr, "%s: ", lfn_prog);
	vfprintf(stderr, fmt, ap);
	if (note)
		fputs(note, stderr);
	fputc('\n', stderr);
}

void lfn_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, NULL);
	va_end(ap);
}

void lfn_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap, NULL);
	va_end(ap);
	exit(status);
}

void lfn_err_capped(uint64_t seen, uint64_t max, const char *note, const char *fmt, ...)
{
	va_list ap;

	if (seen > max)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap, seen == max ? note : NULL);
	va_end(ap);
}

/* ---- signals and stdout ---- */

static void on_stop_signal(int sig)
{
	lfn_stop_signal = sig;
}

void lfn_catch_stop_signals(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	if (flags & LFN_SIG_RESTART)
		sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (flags & LFN_SIG_IGNORE_PIPE)
		signal(SIGPIPE, SIG_IGN);
}

void lfn_stdout_blocking(char *buf, size_t size)
{
	int fl = fcntl(STDOUT_FILENO, F_GETFL);

	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(STDOUT_FILENO, F_SETFL, fl & ~O_NONBLOCK);
	setvbuf(stdout, buf, _IOFBF, size);
}

void lfn_tight_timer_slack(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

/* ---- fixed-rate ticks ---- */

void lfn_slots_start(struct lfn_slots *s, unsigned hz, uint64_t duration_ns)
{
	s->hz = hz;
	s->n = duration_ns ? (duration_ns * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC : UINT64_MAX;
	s->t0 = now_ns(CLOCK_MONOTONIC);
}

int lfn_slots_sleep(const struct lfn_slots *s, uint64_t k)
{
	struct timespec wake = ns_to_timespec(s->t0 + k * NSEC_PER_SEC / s->hz);

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL);
}

uint64_t lfn_slots_next(const struct lfn_slots *s, uint64_t k, uint64_t done, uint64_t *late, uint64_t *skipped)
{
	uint64_t next = k + 1, cur;

	if (done > s->t0 + next * NSEC_PER_SEC / s->hz) {
		(*late)++;
		cur = (done - s->t0) * s->hz / NSEC_PER_SEC;
		if (cur > next) {
			uint64_t last = cur < s->n ? cur : s->n;

			if (last > next)
				*skipped += last - next;
			next = cur;
		}
	}
	return next;
}

int lfn_end_record(void (*print_end)(FILE *f, const char *reason, uint64_t elapsed_ns), const char *reason,
		   uint64_t elapsed_ns, int out_errno)
{
	if (!ferror(stdout)) {
		print_end(stdout, reason, elapsed_ns);
		fflush(stdout);
	}
	if (!ferror(stdout))
		return 0;
	lfn_err("writing stdout failed: %s", strerror(out_errno ? out_errno : errno));
	print_end(stderr, reason, elapsed_ns);
	return 1;
}

int lfn_opt_hz(const char *arg, unsigned *hz)
{
	uint64_t v;

	if (parse_u64(arg, 1, 100, &v)) {
		lfn_err("--hz must be an integer 1..100 (got '%s')", arg);
		return -1;
	}
	*hz = (unsigned)v;
	return 0;
}

int lfn_opt_duration(const char *arg, double *s, uint64_t *ns)
{
	if (parse_double(arg, 0, 1e7, s)) {
		lfn_err("--duration must be seconds >= 0 (got '%s')", arg);
		return -1;
	}
	*ns = (uint64_t)llround(*s * 1e9);
	return 0;
}

int lfn_opt_format(const char *arg, enum out_format *format)
{
	if (!strcmp(arg, "tsv")) {
		*format = FMT_TSV;
	} else if (!strcmp(arg, "jsonl")) {
		*format = FMT_JSONL;
	} else {
		lfn_err("--format must be tsv or jsonl (got '%s')", arg);
		return -1;
	}
	return 0;
}

/* ---- option values ---- */

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

int lfn_bad_value(const char *what, const char *arg)
{
	lfn_err("%s (got '%.60s')", what, arg);
	return -1;
}

void lfn_try_help(void)
{
	fprintf(stderr, "Try '%s --help'.\n", lfn_prog);
}

int lfn_other_option(int c, int help_id, int version_id, void (*usage)(FILE *f), int format_version)
{
	if (c == help_id) {
		usage(stdout);
		exit(0);
	}
	if (c == version_id) {
		printf("%s output format v%d\n", lfn_prog, format_version);
		exit(0);
	}
	lfn_try_help();
	return -1;
}

int lfn_no_operands(int argc, char **argv)
{
	if (optind < argc) {
		lfn_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return 0;
}
