/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grid_math.h - arithmetic and state machine of lfnlab's "TCP Grid" module
 * (tcp_grid), after Martin-Flatin & Ravot 2002, "TCP Congestion Control in
 * Fast Long-Distance Networks" (seed 003).
 *
 * Compiled unchanged by the kernel module (grid/tcp_grid.c) and by the
 * user-space harness (test/test_grid.c).  Integer arithmetic only.
 *
 * Definition of congestion (sec. III.B): at least two packets lost in the
 * same congestion window; a single loss is a line error and changes
 * nothing.  (The threshold is the "loss_thresh" parameter, default 2; an
 * ECN echo is an explicit congestion signal and always counts.)
 *
 * Decrease (sec. IV.B): the flow uses alpha_i = ABW_i / C of the capacity
 * C (eq. 14); on congestion the new share follows from
 *   C / ABW_i = C / ABW_{i+1} - 1                                   (13)
 *   alpha_{i+1} = alpha_i / (1 + alpha_i)                           (15)
 * so the window becomes  w <- w / (1 + alpha_i)   (alpha = 1 halves, as
 * Jacobson's eq. (17); alpha = 0.2 keeps 83 %).  alpha_i is estimated as
 * (w / sRTT) / C with C the configured or the largest measured delivery
 * rate.
 *
 * Increase (sec. IV.C):
 *   state 1/2 (after congestion): binary search back towards ABW_i, the
 *     window at which congestion was detected: each RTT add half the
 *     remaining gap until the step is down to one packet, then one packet
 *     per RTT (Jacobson's additive increase) until ABW_i is reached;
 *     congestion on the way (state 2, a new phase) decreases again by (15).
 *   state 3: hold the window ("keep sending at ABW_i") until the TCP greedy
 *     timer expires (paper: 10 min to 1 h; "greedy_ms").
 *   state 4: probe upwards, one packet per RTT (the paper's less aggressive
 *     choice, default) or once per RTT by
 *       C / ABW_i = C / ABW_{i+1} + 1,  i.e.  alpha_{i+1} = alpha_i / (1 - alpha_i)  (20)
 *     so w <- w / (1 - alpha), capped at doubling ("probe_mode" = 1).
 *   state 5 (bootstrap): the paper seeds ABW_0 = C; without a trustworthy
 *     C the module uses standard slow start to find the first level.
 */
#ifndef LFNLAB_GRID_MATH_H
#define LFNLAB_GRID_MATH_H

#include "stacks_compat.h"

#define GRID_Q		16
#define GRID_ONE	(1U << GRID_Q)		/* alpha = 1.0 */
#define GRID_MIN_CWND	2U
#define GRID_MAX_W	(1U << 22)

enum grid_state {
	GRID_BOOT = 0,		/* state 5: slow start, no level known yet */
	GRID_SEARCH = 1,	/* states 1/2: binary search towards w_max */
	GRID_HOLD = 2,		/* state 3: steady until the greedy timer */
	GRID_PROBE = 3,		/* state 4: look for a higher level */
};

enum grid_probe_mode {
	GRID_PROBE_ADDITIVE = 0,	/* one packet per RTT */
	GRID_PROBE_EQ20 = 1,		/* alpha <- alpha / (1 - alpha) */
};

struct grid_core {
	u32 w_max;		/* window when congestion was last detected (ABW_i) */
	u32 alpha_q16;		/* alpha_i used for the last decrease */
	u32 hold_start_ms;	/* when state 3 began */
	u32 events;		/* congestion events acted on */
	u32 ignored;		/* loss episodes ignored as line errors */
	u8 state;		/* enum grid_state */
};

static inline void grid_core_init(struct grid_core *g)
{
	g->w_max = 0;
	g->alpha_q16 = GRID_ONE;
	g->hold_start_ms = 0;
	g->events = 0;
	g->ignored = 0;
	g->state = GRID_BOOT;
}

/* Section III.B: congestion needs >= thresh losses in one window. */
static inline bool grid_is_congestion(u32 losses, bool ecn_echo, u32 thresh)
{
	if (thresh == 0)
		thresh = 1;
	return ecn_echo || losses >= thresh;
}

/* (15): alpha_{i+1} = alpha_i / (1 + alpha_i), Q16, rounded. */
static inline u32 grid_alpha_next_q16(u32 alpha_q16)
{
	u64 den = (u64)GRID_ONE + alpha_q16;

	return (u32)div64_u64(((u64)alpha_q16 << GRID_Q) + den / 2, den);
}

/* Window after congestion: w / (1 + alpha), rounded, at least 2. */
static inline u32 grid_decrease(u32 w, u32 alpha_q16)
{
	u64 den = (u64)GRID_ONE + alpha_q16;
	u32 nw = (u32)div64_u64(((u64)w << GRID_Q) + den / 2, den);

	return nw < GRID_MIN_CWND ? GRID_MIN_CWND : nw;
}

/*
 * alpha = (w / sRTT) / C in Q16, clamped to (0, 1]; cap_pps is C in
 * packets per second (0 = unknown: alpha = 1, i.e. Jacobson's halving).
 */
static inline u32 grid_alpha_q16(u32 w, u32 srtt_us, u32 cap_pps)
{
	u64 num, den, a;

	if (cap_pps == 0 || srtt_us == 0)
		return GRID_ONE;
	w = w > GRID_MAX_W ? GRID_MAX_W : w;
	num = (u64)w * 1000000ULL << GRID_Q;		/* < 2^58 */
	den = (u64)srtt_us * cap_pps;
	a = div64_u64(num, den);
	if (a > GRID_ONE)
		a = GRID_ONE;
	if (a == 0)
		a = 1;
	return (u32)a;
}

/* Capacity in packets per second from a link rate in Mbit/s and the MSS. */
static inline u32 grid_pps_from_mbps(u32 mbps, u32 mss)
{
	if (mss == 0)
		return 0;
	return lfn_sat_u32(div_u64((u64)mbps * 1000000ULL, mss * 8));
}

/* Delivery rate in packets per second from a rate sample. */
static inline u32 grid_pps_from_sample(u32 delivered, u32 interval_us)
{
	if (interval_us == 0)
		return 0;
	return lfn_sat_u32(div_u64((u64)delivered * 1000000ULL, interval_us));
}

/* Congestion acted on: remember ABW_i, apply (15), enter state 1. */
static inline u32 grid_on_congestion(struct grid_core *g, u32 w, u32 alpha_q16)
{
	g->w_max = w;
	g->alpha_q16 = alpha_q16;
	g->state = GRID_SEARCH;
	g->events++;
	return grid_decrease(w, alpha_q16);
}

/* Probe step of (20): w / (1 - alpha) - w, at most w (doubling). */
static inline u32 grid_eq20_step(u32 w, u32 alpha_q16)
{
	u64 grown;

	if (alpha_q16 >= GRID_ONE / 2)
		return w;
	grown = div64_u64((u64)w << GRID_Q, GRID_ONE - alpha_q16);
	if (grown - w > w)
		return w;
	return (u32)(grown - w) ? (u32)(grown - w) : 1;
}

/*
 * Window increase (packets) to spread over the next RTT, called once per
 * round outside slow start and loss recovery.  Advances the state machine.
 */
static inline u32 grid_round_increment(struct grid_core *g, u32 w, u32 now_ms,
				       u32 greedy_ms, u32 probe_mode,
				       u32 alpha_now_q16)
{
	u32 gap, step;

	if (g->state == GRID_BOOT)
		return 1;		/* past ssthresh without congestion */

	if (g->state == GRID_SEARCH) {
		if (w < g->w_max) {
			gap = g->w_max - w;
			step = gap / 2;
			return step > 1 ? step : 1;
		}
		g->state = GRID_HOLD;		/* ABW_i reached: state 3 */
		g->hold_start_ms = now_ms;
	}

	if (g->state == GRID_HOLD) {
		if (greedy_ms != 0 &&
		    (u32)(now_ms - g->hold_start_ms) < greedy_ms)
			return 0;
		g->state = GRID_PROBE;		/* greedy timer expired: state 4 */
	}

	if (probe_mode == GRID_PROBE_EQ20)
		return grid_eq20_step(w, alpha_now_q16);
	return 1;
}

/* Per-ACK divisor for spreading `inc` packets over one window. */
static inline u32 grid_ai_divisor(u32 w, u32 inc)
{
	u32 d;

	if (inc == 0)
		return 0;
	d = w / inc;
	return d ? d : 1;
}

#endif /* LFNLAB_GRID_MATH_H */
