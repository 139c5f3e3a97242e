// SPDX-License-Identifier: GPL-2.0-only
/*
 * lfn-udpgen: paced UDP cross traffic whose rate follows a pattern: constant
 * (cbr), a sine around a mean, or the aggregate of N on/off sources with
 * Pareto-distributed periods (self-similar for 1/2 < H < 1).
 *
 * Pacing integrates the rate function: datagram n is due at the time t_n
 * where the intended bits sent since the start, I(t), reach n times the
 * bits of one datagram. Send times are absolute CLOCK_MONOTONIC instants
 * (clock_nanosleep TIMER_ABSTIME), so rounding and wake-up latency never
 * accumulate into drift. When the process falls behind (a late wake-up,
 * a busy CPU), at most --burst overdue datagrams go out back to back, and
 * the rest follow in such bursts at twice the pattern's rate until the
 * schedule is met again; a datagram more than --max-lag overdue is dropped
 * from the schedule (counted as skipped) so the traffic stays in phase with
 * the pattern instead of piling up a backlog.
 *
 * The self-similar schedule is a pure function of its parameters and the
 * seed: the report's intended rate comes from a second copy of the on/off
 * process that replays the same random draws, so reports never depend on
 * how far ahead the sender had to look.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include "lfnudp.h"

#define PROG "lfn-udpgen"
#define FORMAT_VERSION 1

#define MAX_SOURCES 1024
#define MAX_BURST 64
#define MAX_RATE_BPS 1e11
#define MAX_LOGGED_ERRORS 5
/* Keeps a Pareto draw finite (u^(-1/alpha) overflows for tiny u when alpha is near 1). */
#define MAX_ONOFF_PERIOD_S 1e7
/* Schedule times at or past this are treated as never (about 31 years). */
#define NEVER_S 1e9
#define NEVER_NS UINT64_MAX
/*
 * Each source flips on average once per --onoff-mean, and a flip costs a
 * Pareto draw and a heap update; bound the total so the schedule stays cheap.
 */
#define MAX_FLIPS_PER_S 1e5

enum pattern { PAT_NONE, PAT_CBR, PAT_SINE, PAT_SELFSIM };

struct options {
	struct sockaddr_storage dst;
	socklen_t dst_len;
	char dst_text[INET6_ADDRSTRLEN + 16];
	enum pattern pattern;
	double rate;       /* cbr, bit/s */
	double mean;       /* sine and selfsimilar, bit/s */
	double amplitude;  /* sine, bit/s */
	double period;     /* sine, s */
	double hurst;      /* selfsimilar */
	double onoff_mean; /* selfsimilar: mean on period = mean off period, s */
	unsigned sources;
	uint64_t seed;
	unsigned size;
	unsigned overhead;
	unsigned hz;
	unsigned burst;
	double max_lag_s;
	uint64_t max_lag_ns;
	double duration_s;
	uint64_t duration_ns;
	int dry_run;
};

/* Per-interval counters, added to the totals when the interval is written. */
struct counters {
	uint64_t datagrams;
	uint64_t ip_bytes;
	uint64_t late;
	uint64_t skipped;
	uint64_t errors;
};

/* ---- self-similar: N on/off sources with Pareto periods ---- */

struct toggle {
	double t; /* end of the source's current period, s since start */
	uint32_t src;
};

struct onoff {
	uint64_t rng;
	unsigned n;
	unsigned on_count;
	double alpha;
	double scale; /* Pareto minimum, s */
	double peak;  /* bit/s of one source while on */
	/* Cursor: intended bits sent in [0, t]. Only moves forward. */
	double t;
	double bits;
	struct toggle heap[MAX_SOURCES]; /* min-heap on (t, src) */
	uint8_t on[MAX_SOURCES];
};

/* The schedule of one consumer: the sender and the reporter each have one. */
struct sched {
	struct onoff *oo; /* selfsimilar only */
	double t;         /* sine: last answer, the next search starts there */
};

static struct options opt;
static struct counters cur, tot;
static uint64_t max_late_ns;
static uint64_t logged_errors;

static struct onoff oo_send, oo_report;
static struct sched send_sched = { .oo = &oo_send }, report_sched = { .oo = &oo_report };

static uint64_t t0_mono, t0_real;
static uint64_t tick;        /* index of the interval being filled */
static uint64_t tick_end_ns; /* relative end of the last written interval */
static double bits_prev;     /* intended bits up to the start of interval `tick` */
static int stdout_failed;

static unsigned char payload[LFNUDP_MAX_PAYLOAD];
static char stdout_buf[1 << 14];

/* Errors can repeat per datagram; past MAX_LOGGED_ERRORS they are only counted. */
#define log_error(...) lfn_err_capped(logged_errors++, MAX_LOGGED_ERRORS, " (further errors are only counted)", __VA_ARGS__)

/* splitmix64: small, fast, and enough for drawing period lengths. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]: 53 random bits, never 0 so a Pareto draw stays finite. */
static double unit_draw(uint64_t *s)
{
	return (double)((splitmix64(s) >> 11) + 1) * 0x1.0p-53;
}

static double pareto_draw(struct onoff *p)
{
	double x = p->scale * pow(unit_draw(&p->rng), -1.0 / p->alpha);

	return x < MAX_ONOFF_PERIOD_S ? x : MAX_ONOFF_PERIOD_S;
}

static int toggle_less(const struct toggle *a, const struct toggle *b)
{
	return a->t < b->t || (a->t == b->t && a->src < b->src);
}

static void heap_swap(struct onoff *p, unsigned i, unsigned j)
{
	struct toggle tmp = p->heap[i];

	p->heap[i] = p->heap[j];
	p->heap[j] = tmp;
}

static void sift_up(struct onoff *p, unsigned i)
{
	while (i > 0 && toggle_less(&p->heap[i], &p->heap[(i - 1) / 2])) {
		heap_swap(p, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct onoff *p, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < p->n && toggle_less(&p->heap[l], &p->heap[m]))
			m = l;
		if (r < p->n && toggle_less(&p->heap[r], &p->heap[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(p, i, m);
		i = m;
	}
}

/*
 * Every source starts a fresh period at t = 0, on or off with probability
 * 1/2. On and off periods share one distribution, so by symmetry each source
 * is on with probability exactly 1/2 at every instant and the expected
 * aggregate is the mean from the start (no warm-up transient), without the
 * even heavier-tailed residual periods a stationary start would need.
 */
static void onoff_init(struct onoff *p)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	p->rng = opt.seed;
	p->n = opt.sources;
	p->alpha = 3 - 2 * opt.hurst;
	/* Pareto mean = alpha * scale / (alpha - 1). */
	p->scale = opt.onoff_mean * (p->alpha - 1) / p->alpha;
	p->peak = 2 * opt.mean / opt.sources;
	for (i = 0; i < p->n; i++) {
		p->on[i] = unit_draw(&p->rng) <= 0.5;
		p->on_count += p->on[i];
		p->heap[i].t = pareto_draw(p);
		p->heap[i].src = i;
		sift_up(p, i);
	}
}

/* Flips the source whose period ends first; the cursor is at that instant. */
static void onoff_flip(struct onoff *p)
{
	struct toggle *top = &p->heap[0];

	if (p->on[top->src]) {
		p->on[top->src] = 0;
		p->on_count--;
	} else {
		p->on[top->src] = 1;
		p->on_count++;
	}
	top->t += pareto_draw(p);
	sift_down(p, 0);
}

static void onoff_advance(struct onoff *p, double t)
{
	while (p->heap[0].t <= t) {
		p->bits += p->on_count * p->peak * (p->heap[0].t - p->t);
		p->t = p->heap[0].t;
		onoff_flip(p);
	}
	if (t > p->t) {
		p->bits += p->on_count * p->peak * (t - p->t);
		p->t = t;
	}
}

static double onoff_time_for_bits(struct onoff *p, double bits)
{
	for (;;) {
		const double rate = p->on_count * p->peak, next = p->heap[0].t;

		if (bits <= p->bits)
			return p->t;
		if (rate > 0 && p->bits + rate * (next - p->t) >= bits) {
			double t = p->t + (bits - p->bits) / rate;

			p->t = t < next ? t : next;
			p->bits = bits;
			return p->t;
		}
		p->bits += rate * (next - p->t);
		p->t = next;
		onoff_flip(p);
	}
}

/* ---- sine: rate(t) = mean + amplitude * sin(2 pi t / period) ---- */

static double sine_rate(double t)
{
	return opt.mean + opt.amplitude * sin(2 * M_PI * t / opt.period);
}

static double sine_bits(double t)
{
	const double w = 2 * M_PI / opt.period;

	return opt.mean * t + opt.amplitude / w * (1 - cos(w * t));
}

/*
 * Smallest t >= lo with I(t) = bits: Newton's method kept inside a bracket,
 * bisecting whenever a step leaves it (the rate touches 0 at the trough when
 * amplitude = mean). Over any window of length L, I grows by at least
 * mean*L - amplitude*period/pi, which gives the upper end of the bracket.
 */
static double sine_time_for_bits(double lo, double bits)
{
	double need = bits - sine_bits(lo), hi, x, r;
	int i;

	if (need <= 0)
		return lo;
	hi = lo + need / opt.mean + opt.period / M_PI;
	r = sine_rate(lo);
	x = r > 0 ? lo + need / r : (lo + hi) / 2;
	for (i = 0; i < 200; i++) {
		double f, nx;

		if (!(x > lo && x < hi))
			x = (lo + hi) / 2;
		f = sine_bits(x) - bits;
		if (f == 0)
			return x;
		if (f > 0)
			hi = x;
		else
			lo = x;
		r = sine_rate(x);
		nx = r > 0 ? x - f / r : (lo + hi) / 2;
		if (fabs(nx - x) <= 1e-10 + 4e-16 * x || hi - lo <= 1e-10 + 4e-16 * hi)
			return nx > lo && nx < hi ? nx : hi;
		x = nx;
	}
	return hi;
}

/* ---- the pattern as one schedule ---- */

/* Time (s since start) at which the intended bits reach `bits`; calls must not go backwards. */
static double sched_time_for_bits(struct sched *s, double bits)
{
	switch (opt.pattern) {
	case PAT_CBR:
		return bits / opt.rate;
	case PAT_SINE:
		s->t = sine_time_for_bits(s->t, bits);
		return s->t;
	default:
		return onoff_time_for_bits(s->oo, bits);
	}
}

/* Intended bits in [0, t]; calls must not go backwards. */
static double sched_bits_at(struct sched *s, double t)
{
	switch (opt.pattern) {
	case PAT_CBR:
		return opt.rate * t;
	case PAT_SINE:
		return sine_bits(t);
	default:
		onoff_advance(s->oo, t);
		return s->oo->bits;
	}
}

static uint64_t seconds_to_ns(double s)
{
	if (!(s < NEVER_S))
		return NEVER_NS;
	return (uint64_t)(s * 1e9 + 0.5);
}

/* Start of interval k, ns since t0; integer maths so the grid never drifts. */
static uint64_t boundary_ns(uint64_t k)
{
	return k * NSEC_PER_SEC / opt.hz;
}

/* ---- output ---- */

static const char *pattern_name(void)
{
	switch (opt.pattern) {
	case PAT_CBR:
		return "cbr";
	case PAT_SINE:
		return "sine";
	default:
		return "selfsimilar";
	}
}

static void print_header(void)
{
	printf("# " PROG " v%d dest=%s pattern=%s", FORMAT_VERSION, opt.dry_run ? "-" : opt.dst_text,
	       pattern_name());
	switch (opt.pattern) {
	case PAT_CBR:
		printf(" rate_bps=%.15g", opt.rate);
		break;
	case PAT_SINE:
		printf(" mean_bps=%.15g amplitude_bps=%.15g period_s=%.15g", opt.mean, opt.amplitude, opt.period);
		break;
	default:
		printf(" mean_bps=%.15g hurst=%.15g sources=%u onoff_mean_s=%.15g seed=%llu alpha=%.15g"
		       " source_peak_bps=%.15g",
		       opt.mean, opt.hurst, opt.sources, opt.onoff_mean, (unsigned long long)opt.seed,
		       oo_send.alpha, oo_send.peak);
		break;
	}
	printf(" size=%u ip_bytes=%u report_hz=%u duration_s=%.15g burst=%u max_lag_s=%.15g dry_run=%d"
	       " start_mono_ns=%llu start_ts_ns=%llu\n",
	       opt.size, opt.size + opt.overhead, opt.hz, opt.duration_s, opt.burst, opt.max_lag_s, opt.dry_run,
	       (unsigned long long)t0_mono, (unsigned long long)t0_real);
	printf("#tick\tts_ns\tmono_ns\tinterval_ns\tdatagrams\tip_bytes\tintended_bps\tlate\tskipped\terrors\n");
}

/* Writes interval `tick` as ending at `end_ns` (relative) and opens the next one. */
static void emit_interval(uint64_t end_ns)
{
	const uint64_t start = boundary_ns(tick);
	const double bits = sched_bits_at(&report_sched, end_ns / 1e9);
	const double len_s = (double)(end_ns - start) / 1e9;

	printf("%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.0f\t%llu\t%llu\t%llu\n", (unsigned long long)tick,
	       (unsigned long long)(t0_real + start), (unsigned long long)(t0_mono + start),
	       (unsigned long long)(end_ns - start), (unsigned long long)cur.datagrams,
	       (unsigned long long)cur.ip_bytes, len_s > 0 ? (bits - bits_prev) / len_s : 0.0,
	       (unsigned long long)cur.late, (unsigned long long)cur.skipped, (unsigned long long)cur.errors);
	if (fflush(stdout))
		stdout_failed = 1;
	tot.datagrams += cur.datagrams;
	tot.ip_bytes += cur.ip_bytes;
	tot.late += cur.late;
	tot.skipped += cur.skipped;
	tot.errors += cur.errors;
	memset(&cur, 0, sizeof(cur));
	bits_prev = bits;
	tick_end_ns = end_ns;
	tick++;
}

/* Writes every interval that ended by `rel` (relative ns), then a partial one up to `rel` if asked. */
static void emit_until(uint64_t rel, int partial)
{
	while (!stdout_failed && boundary_ns(tick + 1) <= rel)
		emit_interval(boundary_ns(tick + 1));
	if (!stdout_failed && partial && rel > boundary_ns(tick))
		emit_interval(rel);
}

static void print_end(FILE *f, const char *reason, uint64_t elapsed_ns)
{
	const uint64_t cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	const double intended = tick_end_ns ? bits_prev / (tick_end_ns / 1e9) : 0.0;

	fprintf(f,
		"#end\treason=%s\tsent=%llu\tip_bytes=%llu\tlate=%llu\tskipped=%llu\terrors=%llu"
		"\tintended_bps=%.0f\tmax_late_ns=%llu\telapsed_ns=%llu\tcpu_ns=%llu\n",
		reason, (unsigned long long)tot.datagrams, (unsigned long long)tot.ip_bytes,
		(unsigned long long)tot.late, (unsigned long long)tot.skipped, (unsigned long long)tot.errors,
		intended, (unsigned long long)max_late_ns, (unsigned long long)elapsed_ns,
		(unsigned long long)cpu_ns);
}

/* ---- sending ---- */

static int send_datagram(int fd, uint64_t seq)
{
	int refused = 0;

	put_be64(payload, seq);
	put_be64(payload + 8, now_ns(CLOCK_REALTIME));
	for (;;) {
		if (send(fd, payload, opt.size, MSG_DONTWAIT) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		/*
		 * A connected UDP socket reports an ICMP port-unreachable for an
		 * earlier datagram on the next send, which then did not go out.
		 */
		if (errno == ECONNREFUSED && !refused) {
			refused = 1;
			log_error("destination port unreachable (is the sink listening?)");
			continue;
		}
		log_error("send: %s", strerror(errno));
		return -1;
	}
}

static const char *run_dry(void)
{
	const double bits_per = 8.0 * (opt.size + opt.overhead);
	uint64_t n = 0, next = 0;

	while (!stdout_failed && boundary_ns(tick) < opt.duration_ns) {
		uint64_t b = boundary_ns(tick + 1);

		if (b > opt.duration_ns)
			b = opt.duration_ns;
		while (next < b) {
			cur.datagrams++;
			cur.ip_bytes += opt.size + opt.overhead;
			n++;
			next = seconds_to_ns(sched_time_for_bits(&send_sched, (double)n * bits_per));
		}
		emit_interval(b);
	}
	return stdout_failed ? "error" : "duration";
}

static const char *run(int fd, uint64_t *elapsed)
{
	const double bits_per = 8.0 * (opt.size + opt.overhead);
	const uint64_t end_rel = opt.duration_ns ? opt.duration_ns : NEVER_NS;
	uint64_t n = 0, seq = 0, next_rel = seconds_to_ns(sched_time_for_bits(&send_sched, 0));
	uint64_t resume_rel = 0; /* while catching up: no send before this */

	for (;;) {
		uint64_t wake = boundary_ns(tick + 1), now, rel, prev_rel;
		unsigned sent_now = 0;
		int rc;

		if (next_rel < end_rel) {
			const uint64_t go = next_rel > resume_rel ? next_rel : resume_rel;

			if (go < wake)
				wake = go;
		}
		if (end_rel < wake)
			wake = end_rel;
		now = now_ns(CLOCK_MONOTONIC);
		/*
		 * A signal landing between this check and the sleep is seen at the
		 * next wake-up, at most one report interval later.
		 */
		if (lfn_stop_signal) {
			rel = now > t0_mono ? now - t0_mono : 0;
			emit_until(rel < end_rel ? rel : end_rel, 1);
			*elapsed = rel;
			return stdout_failed ? "error" : "signal";
		}
		if (now < t0_mono + wake) {
			struct timespec ts = ns_to_timespec(t0_mono + wake);

			rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			if (rc == EINTR)
				continue;
			if (rc) {
				fprintf(stderr, PROG ": clock_nanosleep: %s\n", strerror(rc));
				*elapsed = now > t0_mono ? now - t0_mono : 0;
				return "error";
			}
			now = now_ns(CLOCK_MONOTONIC);
		}
		rel = now - t0_mono;

		/* Due before the end but not sent by then (a late last wake-up): skipped. */
		while (rel >= end_rel && next_rel < end_rel) {
			cur.skipped++;
			n++;
			next_rel = seconds_to_ns(sched_time_for_bits(&send_sched, (double)n * bits_per));
		}
		/* Datagrams sent so far belong to the intervals that have ended. */
		emit_until(rel < end_rel ? rel : end_rel, rel >= end_rel);
		if (stdout_failed) {
			*elapsed = rel;
			return "error";
		}
		if (rel >= end_rel) {
			*elapsed = rel;
			return "duration";
		}
		if (rel < resume_rel)
			continue;

		/* Too far behind to catch up without distorting the pattern: drop from the schedule. */
		while (next_rel < end_rel && next_rel + opt.max_lag_ns < rel) {
			cur.skipped++;
			n++;
			next_rel = seconds_to_ns(sched_time_for_bits(&send_sched, (double)n * bits_per));
		}
		prev_rel = next_rel;
		while (next_rel <= rel && next_rel < end_rel && sent_now < opt.burst) {
			const uint64_t lateness = rel - next_rel;

			prev_rel = next_rel;
			n++;
			next_rel = seconds_to_ns(sched_time_for_bits(&send_sched, (double)n * bits_per));
			sent_now++;
			if (send_datagram(fd, seq)) {
				cur.errors++;
				continue;
			}
			seq++;
			cur.datagrams++;
			cur.ip_bytes += opt.size + opt.overhead;
			/* Late: its successor was already due when it went out. */
			if (next_rel <= rel)
				cur.late++;
			if (lateness > max_late_ns)
				max_late_ns = lateness;
		}
		/*
		 * Still behind after a full burst: pause for half the time the burst
		 * would take on schedule, i.e. catch up at twice the pattern's rate
		 * (never so long that the pause alone would push it past --max-lag).
		 */
		resume_rel = 0;
		if (next_rel <= rel && next_rel < end_rel) {
			uint64_t pause = ((next_rel > prev_rel ? next_rel - prev_rel : 0) * opt.burst + 1) / 2;

			if (pause > opt.max_lag_ns / 2)
				pause = opt.max_lag_ns / 2;
			resume_rel = rel + pause;
		}
	}
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --host ADDR --port PORT --pattern cbr|sine|selfsimilar [OPTIONS]\n"
		"Send paced UDP datagrams whose rate follows a pattern; one report line per interval on stdout.\n"
		"\n"
		"Rates are bits per second at the IP layer: UDP payload + 8 bytes UDP header + 20 bytes IPv4\n"
		"header (40 for IPv6) per datagram, so --size 1472 over IPv4 is one full 1500-byte MTU packet and\n"
		"--rate 100M sends 8333.3 such datagrams/s. Link-layer framing is not counted (an Ethernet\n"
		"device's tc qdisc sees 14 bytes more per datagram). Rate values take an optional k, M or G suffix\n"
		"(powers of 1000).\n"
		"\n"
		"Options:\n"
		"  --host ADDR          destination, numeric IPv4 or IPv6 address\n"
		"  --port PORT          destination UDP port, 1..65535\n"
		"  --pattern NAME       cbr | sine | selfsimilar\n"
		"  --rate BPS           cbr: constant rate, bit/s\n"
		"  --mean BPS           sine, selfsimilar: mean rate, bit/s\n"
		"  --amplitude BPS      sine: amplitude, bit/s, 0..mean; rate(t) = mean + amplitude*sin(2*pi*t/period),\n"
		"                       t in seconds since the start\n"
		"  --period SECONDS     sine: period, s\n"
		"  --hurst H            selfsimilar: Hurst parameter, 0.5..0.99\n"
		"  --sources N          selfsimilar: on/off sources superposed, 1..%d (default 16)\n"
		"  --onoff-mean SECONDS selfsimilar: mean length of an on period and of an off period, 0.001..10000\n"
		"                       (default 0.1); sources / onoff-mean at most 100000\n"
		"  --seed N             selfsimilar: PRNG seed, 0..2^64-1 (default 1); same seed, same schedule\n"
		"  --size BYTES         UDP payload per datagram, %d..%d (default 1472); the first 16 bytes carry\n"
		"                       the sequence number and the send time (CLOCK_REALTIME ns), big-endian\n"
		"  --duration SECONDS   run time, fractions allowed; 0 = until SIGTERM/SIGINT (default 0)\n"
		"  --report HZ          report intervals per second, 1..100 (default 10)\n"
		"  --burst N            most datagrams sent back to back when behind schedule, 1..%d (default 4)\n"
		"  --max-lag SECONDS    a datagram due longer ago than this is skipped, 0..1 (default 0.01)\n"
		"  --dry-run            print the schedule's reports at once, without sending or sleeping\n"
		"                       (needs --duration; --host/--port optional)\n"
		"  --help               this text\n"
		"  --version            print version\n"
		"\n"
		"selfsimilar: N sources alternate on and off periods drawn from one Pareto distribution with\n"
		"shape alpha = 3 - 2H and mean --onoff-mean; each sends at 2*mean/N while on, so the expected\n"
		"aggregate is --mean at every instant and its peak (all on) is 2*mean. Each source starts a fresh\n"
		"period at t = 0, on or off with probability 1/2.\n"
		"\n"
		"Pacing: datagram n (from 0) is due when the integral of the rate since the start reaches n times\n"
		"the IP bits of one datagram; due times are absolute CLOCK_MONOTONIC instants. When the sender\n"
		"wakes up with several datagrams due, it sends at most --burst of them back to back and the rest\n"
		"in further such bursts at twice the pattern's rate, until it is back on schedule. Datagrams\n"
		"more than --max-lag overdue are dropped from the schedule (skipped; they take no sequence\n"
		"number). Run it at real-time priority (chrt) for tight pacing on a busy machine.\n"
		"\n"
		"TSV output (v%d): a '# " PROG "' comment line with the parameters and the start time\n"
		"(start_mono_ns, start_ts_ns), a '#tick...' line naming the columns, then one line per interval.\n"
		"Interval k covers [start + k/HZ, start + (k+1)/HZ); the last one ends at the stop. Columns:\n"
		"  tick          interval number from 0\n"
		"  ts_ns         CLOCK_REALTIME at the interval's start, ns since the epoch (start_ts_ns + offset)\n"
		"  mono_ns       CLOCK_MONOTONIC at the interval's start, ns\n"
		"  interval_ns   length of the interval, ns (1e9/HZ except for the last)\n"
		"  datagrams     datagrams handed to the kernel in the interval\n"
		"  ip_bytes      their bytes at the IP layer (datagrams * (size + 28), IPv6: + 48)\n"
		"  intended_bps  mean of the pattern's rate over the interval, bit/s (IP layer)\n"
		"  late          datagrams sent when the next one was already due (>= one gap behind)\n"
		"  skipped       datagrams dropped from the schedule: more than --max-lag overdue, or still\n"
		"                unsent when --duration ran out (sent + skipped + errors = datagrams scheduled)\n"
		"  errors        sends the kernel refused (e.g. full socket buffer); not sent, no sequence number\n"
		"The last line is the summary (tab-separated key=value):\n"
		"  #end reason=duration|signal|error sent=N ip_bytes=N late=N skipped=N errors=N intended_bps=N\n"
		"       max_late_ns=N elapsed_ns=N cpu_ns=N\n"
		"intended_bps = pattern mean over the intervals written, max_late_ns = largest delay of a sent\n"
		"datagram after its due time, elapsed_ns = run time, cpu_ns = CPU time used (user + system).\n"
		"\n"
		"Exit status: 0 after duration or SIGTERM/SIGINT, 1 on a runtime error, 2 on bad usage.\n",
		MAX_SOURCES, LFNUDP_HDR_LEN, LFNUDP_MAX_PAYLOAD, MAX_BURST, FORMAT_VERSION);
}

enum {
	OPT_HOST = 256,
	OPT_PORT,
	OPT_PATTERN,
	OPT_RATE,
	OPT_MEAN,
	OPT_AMPLITUDE,
	OPT_PERIOD,
	OPT_HURST,
	OPT_SOURCES,
	OPT_ONOFF_MEAN,
	OPT_SEED,
	OPT_SIZE,
	OPT_DURATION,
	OPT_REPORT,
	OPT_BURST,
	OPT_MAX_LAG,
	OPT_DRY_RUN,
	OPT_HELP,
	OPT_VERSION,
	OPT_END
};

static const struct option longopts[] = {
	{ "host", required_argument, NULL, OPT_HOST },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "mean", required_argument, NULL, OPT_MEAN },
	{ "amplitude", required_argument, NULL, OPT_AMPLITUDE },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "hurst", required_argument, NULL, OPT_HURST },
	{ "sources", required_argument, NULL, OPT_SOURCES },
	{ "onoff-mean", required_argument, NULL, OPT_ONOFF_MEAN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "max-lag", required_argument, NULL, OPT_MAX_LAG },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Which pattern-specific options each pattern takes; anything else is an error, not silently ignored. */
static int check_pattern_options(const unsigned char *seen)
{
	static const int cbr[] = { OPT_RATE, 0 };
	static const int sine[] = { OPT_MEAN, OPT_AMPLITUDE, OPT_PERIOD, 0 };
	static const int selfsim[] = { OPT_MEAN, OPT_HURST, OPT_SOURCES, OPT_ONOFF_MEAN, OPT_SEED, 0 };
	static const int specific[] = { OPT_RATE,    OPT_MEAN,       OPT_AMPLITUDE, OPT_PERIOD,
					 OPT_HURST, OPT_SOURCES, OPT_ONOFF_MEAN, OPT_SEED,      0 };
	const int *allowed = opt.pattern == PAT_CBR ? cbr : opt.pattern == PAT_SINE ? sine : selfsim;
	const int *p, *q;

	for (p = specific; *p; p++) {
		int ok = 0;

		if (!seen[*p - OPT_HOST])
			continue;
		for (q = allowed; *q; q++)
			ok |= *q == *p;
		if (!ok) {
			fprintf(stderr, PROG ": --%s does not apply to --pattern %s\n", longopts[*p - OPT_HOST].name,
				pattern_name());
			return -1;
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv)
{
	unsigned char seen[OPT_END - OPT_HOST] = { 0 };
	const char *host = NULL;
	uint64_t v, port = 0;
	int c;

	opt.hz = 10;
	opt.size = 1472;
	opt.burst = 4;
	opt.max_lag_s = 0.01;
	opt.sources = 16;
	opt.onoff_mean = 0.1;
	opt.seed = 1;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c >= OPT_HOST && c < OPT_END)
			seen[c - OPT_HOST] = 1;
		switch (c) {
		case OPT_HOST:
			host = optarg;
			break;
		case OPT_PORT:
			if (parse_u64(optarg, 1, 65535, &port))
				return lfn_bad_value("--port must be an integer 1..65535", optarg);
			break;
		case OPT_PATTERN:
			if (!strcmp(optarg, "cbr"))
				opt.pattern = PAT_CBR;
			else if (!strcmp(optarg, "sine"))
				opt.pattern = PAT_SINE;
			else if (!strcmp(optarg, "selfsimilar"))
				opt.pattern = PAT_SELFSIM;
			else
				return lfn_bad_value("--pattern must be cbr, sine or selfsimilar", optarg);
			break;
		case OPT_RATE:
			if (parse_bps(optarg, 1, MAX_RATE_BPS, &opt.rate))
				return lfn_bad_value("--rate must be bit/s, 1..1e11, optional k/M/G suffix", optarg);
			break;
		case OPT_MEAN:
			if (parse_bps(optarg, 1, MAX_RATE_BPS, &opt.mean))
				return lfn_bad_value("--mean must be bit/s, 1..1e11, optional k/M/G suffix", optarg);
			break;
		case OPT_AMPLITUDE:
			if (parse_bps(optarg, 0, MAX_RATE_BPS, &opt.amplitude))
				return lfn_bad_value("--amplitude must be bit/s >= 0, optional k/M/G suffix", optarg);
			break;
		case OPT_PERIOD:
			if (parse_double(optarg, 1e-3, 1e7, &opt.period))
				return lfn_bad_value("--period must be seconds, 0.001..1e7", optarg);
			break;
		case OPT_HURST:
			if (parse_double(optarg, 0.5, 0.99, &opt.hurst))
				return lfn_bad_value("--hurst must be 0.5..0.99", optarg);
			break;
		case OPT_SOURCES:
			if (parse_u64(optarg, 1, MAX_SOURCES, &v))
				return lfn_bad_value("--sources must be an integer 1..1024", optarg);
			opt.sources = (unsigned)v;
			break;
		case OPT_ONOFF_MEAN:
			if (parse_double(optarg, 1e-3, 1e4, &opt.onoff_mean))
				return lfn_bad_value("--onoff-mean must be seconds, 0.001..10000", optarg);
			break;
		case OPT_SEED:
			if (parse_u64(optarg, 0, UINT64_MAX, &v))
				return lfn_bad_value("--seed must be an integer 0..18446744073709551615", optarg);
			opt.seed = v;
			break;
		case OPT_SIZE:
			if (parse_u64(optarg, LFNUDP_HDR_LEN, LFNUDP_MAX_PAYLOAD, &v))
				return lfn_bad_value("--size must be an integer 16..65507", optarg);
			opt.size = (unsigned)v;
			break;
		case OPT_DURATION:
			if (udp_opt_duration(optarg, &opt.duration_s, &opt.duration_ns))
				return -1;
			break;
		case OPT_REPORT:
			if (udp_opt_report(optarg, &opt.hz))
				return -1;
			break;
		case OPT_BURST:
			if (parse_u64(optarg, 1, MAX_BURST, &v))
				return lfn_bad_value("--burst must be an integer 1..64", optarg);
			opt.burst = (unsigned)v;
			break;
		case OPT_MAX_LAG:
			if (parse_double(optarg, 0, 1, &opt.max_lag_s))
				return lfn_bad_value("--max-lag must be seconds, 0..1", optarg);
			break;
		case OPT_DRY_RUN:
			opt.dry_run = 1;
			break;
		default:
			return lfn_other_option(c, OPT_HELP, OPT_VERSION, usage, FORMAT_VERSION);
		}
	}
	if (lfn_no_operands(argc, argv))
		return -1;
	opt.max_lag_ns = (uint64_t)llround(opt.max_lag_s * 1e9);
	if (opt.pattern == PAT_NONE) {
		fprintf(stderr, PROG ": --pattern is required (cbr, sine or selfsimilar)\n");
		return -1;
	}
	if (check_pattern_options(seen))
		return -1;
	if (opt.pattern == PAT_CBR && !seen[OPT_RATE - OPT_HOST]) {
		fprintf(stderr, PROG ": --pattern cbr needs --rate\n");
		return -1;
	}
	if (opt.pattern == PAT_SINE) {
		if (!seen[OPT_MEAN - OPT_HOST] || !seen[OPT_AMPLITUDE - OPT_HOST] || !seen[OPT_PERIOD - OPT_HOST]) {
			fprintf(stderr, PROG ": --pattern sine needs --mean, --amplitude and --period\n");
			return -1;
		}
		if (opt.amplitude > opt.mean) {
			fprintf(stderr, PROG ": --amplitude must not exceed --mean (the rate would go negative)\n");
			return -1;
		}
	}
	if (opt.pattern == PAT_SELFSIM && (!seen[OPT_MEAN - OPT_HOST] || !seen[OPT_HURST - OPT_HOST])) {
		fprintf(stderr, PROG ": --pattern selfsimilar needs --mean and --hurst\n");
		return -1;
	}
	if (opt.pattern == PAT_SELFSIM && opt.sources / opt.onoff_mean > MAX_FLIPS_PER_S) {
		fprintf(stderr, PROG ": --sources / --onoff-mean must be at most %.0f on/off changes per second\n",
			MAX_FLIPS_PER_S);
		return -1;
	}
	if (opt.dry_run && !opt.duration_ns) {
		fprintf(stderr, PROG ": --dry-run needs a --duration > 0\n");
		return -1;
	}
	if (!host != !port && opt.dry_run) {
		fprintf(stderr, PROG ": give both --host and --port, or neither with --dry-run\n");
		return -1;
	}
	if (!opt.dry_run && (!host || !port)) {
		fprintf(stderr, PROG ": --host and --port are required\n");
		return -1;
	}
	opt.overhead = LFNUDP_OVERHEAD_V4;
	if (host) {
		if (parse_addr(host, (uint16_t)port, &opt.dst, &opt.dst_len))
			return lfn_bad_value("--host must be a numeric IPv4 or IPv6 address", host);
		if (opt.dst.ss_family == AF_INET6)
			opt.overhead = LFNUDP_OVERHEAD_V6;
		format_addr(&opt.dst, opt.dst_text, sizeof(opt.dst_text));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *reason;
	uint64_t elapsed = 0;
	int fd = -1, status = 0;

	lfn_prog = PROG;
	if (parse_args(argc, argv))
		return 2;

	lfn_stdout_blocking(stdout_buf, sizeof(stdout_buf));

	if (!opt.dry_run) {
		fd = socket(opt.dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
			return 1;
		}
		/* Connected: the route is looked up once, not per datagram. */
		if (connect(fd, (struct sockaddr *)&opt.dst, opt.dst_len)) {
			fprintf(stderr, PROG ": connect %s: %s\n", opt.dst_text, strerror(errno));
			return 1;
		}
		/* The default 50 us timer slack would be a third of the gap at 100 Mbit/s. */
		lfn_tight_timer_slack();
	}
	memset(payload, 0x5a, sizeof(payload));
	if (opt.pattern == PAT_SELFSIM) {
		onoff_init(&oo_send);
		onoff_init(&oo_report);
	}
	/* SA_RESTART keeps a blocked stdout write from failing; clock_nanosleep is never restarted. */
	lfn_catch_stop_signals(LFN_SIG_RESTART | LFN_SIG_IGNORE_PIPE);

	/* A millisecond of lead so the first datagram is not late by the header write. */
	t0_mono = now_ns(CLOCK_MONOTONIC) + 1000000;
	t0_real = now_ns(CLOCK_REALTIME) + 1000000;
	print_header();
	if (fflush(stdout)) {
		fprintf(stderr, PROG ": stdout: %s\n", strerror(errno));
		return 1;
	}

	if (opt.dry_run) {
		reason = run_dry();
		elapsed = opt.duration_ns;
	} else {
		reason = run(fd, &elapsed);
	}
	if (!strcmp(reason, "error"))
		status = 1;
	if (!stdout_failed) {
		print_end(stdout, reason, elapsed);
		if (fflush(stdout))
			stdout_failed = 1;
	}
	if (stdout_failed) {
		fprintf(stderr, PROG ": writing stdout failed: %s\n", strerror(errno));
		print_end(stderr, "error", elapsed);
		status = 1;
	}
	if (fd >= 0)
		close(fd);
	return status;
}
