/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fast_math.h - window arithmetic of lfnlab's FAST TCP module (tcp_fast).
 *
 * Compiled unchanged by the kernel module (fast/tcp_fast.c) and by the
 * user-space harness (test/test_fast.c).  Integer arithmetic only.
 *
 * Equations (FAST TCP as summarised in Bullot, Cottrell & Hughes-Jones 2003,
 * section 2.4, and specified by Jin, Wei & Low, "FAST TCP: motivation,
 * architecture, algorithms, performance", Caltech CS TR 2003.010 / INFOCOM
 * 2004, window-control equation):
 *
 *   w <- min( 2w, (1 - gamma) w + gamma (baseRTT / RTT * w + alpha) )   (F1)
 *
 * applied once per round-trip time, where baseRTT is the minimum RTT seen
 * so far, RTT the average RTT over the last round, alpha the number of
 * packets the flow tries to keep queued in the path and gamma in (0, 1].
 * In equilibrium (F1) is a fixed point exactly when
 *
 *   w - baseRTT / RTT * w = alpha,                                        (F2)
 *
 * i.e. the flow's own backlog w (RTT - baseRTT) / RTT equals alpha.
 * Start-up: with an empty queue (F1) only adds gamma*alpha packets per RTT
 * (measured in this lab: 63-76 of ~95 Mbit/s), so the module grows
 * exponentially (Reno slow start) until the backlog estimate of (F2)
 * reaches alpha, the "queueing appears" condition, and then hands over to
 * (F1).
 */
#ifndef LFNLAB_FAST_MATH_H
#define LFNLAB_FAST_MATH_H

#include "stacks_compat.h"

#define FAST_GAMMA_SHIFT	10
#define FAST_GAMMA_ONE		(1U << FAST_GAMMA_SHIFT)	/* gamma = 1.0 */
#define FAST_MIN_CWND		2U
/* Bounds that keep every product below 2^58 (see fast_window_update). */
#define FAST_MAX_W		(1U << 22)
#define FAST_MAX_RTT_US		(1U << 24)	/* 16.7 s */
#define FAST_MAX_ALPHA		(1U << 16)
/* Samples needed in a round before the start-up exit test may fire early. */
#define FAST_STARTUP_SAMPLES	8U

enum fast_mode {
	FAST_MODE_STARTUP = 0,		/* exponential growth, no queue yet */
	FAST_MODE_EQUILIBRIUM = 1,	/* equation (F1) once per RTT */
};

/* Per-connection measurements; lives inside the socket's private CA area. */
struct fast_core {
	u64 round_sum_us;	/* sum of RTT samples in the current round */
	u32 round_cnt;		/* number of RTT samples in the current round */
	u32 round_min_us;	/* smallest RTT sample in the current round */
	u32 base_rtt_us;	/* baseRTT: smallest RTT ever seen, 0 = none */
	u32 last_avg_us;	/* average RTT of the last completed round */
	u32 updates;		/* number of (F1) updates applied */
	u8 mode;		/* enum fast_mode */
};

static inline void fast_round_reset(struct fast_core *c)
{
	c->round_sum_us = 0;
	c->round_cnt = 0;
	c->round_min_us = 0;
}

static inline void fast_core_init(struct fast_core *c, bool startup)
{
	c->base_rtt_us = 0;
	c->last_avg_us = 0;
	c->updates = 0;
	c->mode = startup ? FAST_MODE_STARTUP : FAST_MODE_EQUILIBRIUM;
	fast_round_reset(c);
}

static inline u32 fast_clamp_rtt(u32 rtt_us)
{
	if (rtt_us == 0)
		return 1;
	return rtt_us > FAST_MAX_RTT_US ? FAST_MAX_RTT_US : rtt_us;
}

/* Feed one RTT sample (microseconds). */
static inline void fast_rtt_sample(struct fast_core *c, u32 rtt_us)
{
	rtt_us = fast_clamp_rtt(rtt_us);
	if (c->base_rtt_us == 0 || rtt_us < c->base_rtt_us)
		c->base_rtt_us = rtt_us;
	if (c->round_cnt == 0 || rtt_us < c->round_min_us)
		c->round_min_us = rtt_us;
	c->round_sum_us += rtt_us;
	c->round_cnt++;
}

/* Average RTT of the current round, 0 if there was no sample. */
static inline u32 fast_round_avg(const struct fast_core *c)
{
	if (c->round_cnt == 0)
		return 0;
	return (u32)div_u64(c->round_sum_us, c->round_cnt);
}

/*
 * Equation (F1).  Returns the new window in packets (never below
 * FAST_MIN_CWND).  gamma_q10 is gamma * 1024, alpha in packets.
 *
 * With T = RTT, B = baseRTT and g = gamma * 1024:
 *   target * 1024 * T = (1024 - g) * w * T + g * (w * B + alpha * T)
 */
static inline u32 fast_window_update(u32 w, u32 base_us, u32 rtt_us,
				     u32 alpha, u32 gamma_q10)
{
	u64 num, target, cap;

	if (base_us == 0 || rtt_us == 0)
		return w < FAST_MIN_CWND ? FAST_MIN_CWND : w;
	w = w > FAST_MAX_W ? FAST_MAX_W : w;
	base_us = fast_clamp_rtt(base_us);
	rtt_us = fast_clamp_rtt(rtt_us);
	if (rtt_us < base_us)		/* queueing delay is never negative */
		rtt_us = base_us;
	alpha = alpha > FAST_MAX_ALPHA ? FAST_MAX_ALPHA : alpha;
	gamma_q10 = gamma_q10 > FAST_GAMMA_ONE ? FAST_GAMMA_ONE : gamma_q10;

	num = (u64)(FAST_GAMMA_ONE - gamma_q10) * w * rtt_us +
	      (u64)gamma_q10 * ((u64)w * base_us + (u64)alpha * rtt_us);
	target = div64_u64(num, (u64)FAST_GAMMA_ONE * rtt_us);
	cap = 2ULL * w;
	if (target > cap)
		target = cap;
	if (target < FAST_MIN_CWND)
		target = FAST_MIN_CWND;
	return (u32)target;
}

/* Packets this flow keeps queued: w (RTT - baseRTT) / RTT, from (F2). */
static inline u32 fast_backlog(u32 w, u32 base_us, u32 rtt_us)
{
	if (base_us == 0 || rtt_us <= base_us)
		return 0;
	w = w > FAST_MAX_W ? FAST_MAX_W : w;
	rtt_us = fast_clamp_rtt(rtt_us);
	return (u32)div_u64((u64)w * (rtt_us - base_us), rtt_us);
}

/*
 * Start-up exit test: queueing has appeared once even the smallest RTT of
 * the round shows a backlog of alpha packets.  Needs FAST_STARTUP_SAMPLES
 * samples in the round unless the round has ended (round_over).
 */
static inline bool fast_startup_done(const struct fast_core *c, u32 w,
				     u32 alpha, bool round_over)
{
	if (c->round_cnt == 0)
		return false;
	if (!round_over && c->round_cnt < FAST_STARTUP_SAMPLES)
		return false;
	return fast_backlog(w, c->base_rtt_us, c->round_min_us) >= alpha;
}

/* gamma given in percent (module parameter) -> Q10, clamped to (0, 1]. */
static inline u32 fast_gamma_q10_from_pct(u32 pct)
{
	if (pct == 0)
		pct = 1;
	if (pct > 100)
		pct = 100;
	return (pct * FAST_GAMMA_ONE + 50) / 100;
}

#endif /* LFNLAB_FAST_MATH_H */
