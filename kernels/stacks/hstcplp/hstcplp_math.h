/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hstcplp_math.h - arithmetic of lfnlab's HSTCP-LP module (tcp_hstcplp).
 *
 * Compiled unchanged by the kernel module (hstcplp/tcp_hstcplp.c) and by
 * the user-space harness (test/test_hstcplp.c).  Integer arithmetic only.
 *
 * HighSpeed TCP response (Floyd, RFC 3649 sections 5 and Appendix B; seed
 * 000 sec. 2.5 and eqs. (2)-(3) with a = a(w), b = b(w)):
 *
 *   ACK:  w <- w + a(w) / w            DROP:  w <- w - b(w) w
 *
 *   for w <= Low_Window (38):  a = 1, b = 0.5 (Reno)
 *   otherwise, with f(w) = (log w - log Low_Window) /
 *                          (log High_Window - log Low_Window):
 *     b(w) = (High_Decrease - 0.5) f(w) + 0.5                       (H1)
 *     p(w) = exp( log Low_P + f(w) (log High_P - log Low_P) )       (H2)
 *     a(w) = w^2 p(w) 2 b(w) / (2 - b(w))                           (H3)
 *   Low_Window = 38, High_Window = 83000, Low_P = 1e-3, High_P = 1e-7,
 *   High_Decrease = 0.1.  a(w) is used rounded down (the RFC's table steps
 *   to the next integer where a(w) crosses it); windows above High_Window
 *   keep the High_Window values.
 *
 * TCP-LP early congestion inference (Kuzmanovic & Knightly, "TCP-LP: a
 * distributed algorithm for low priority data transfer", INFOCOM 2003;
 * seed 000 sec. 2.6):
 *
 *   one-way delay sample  d = TSval(ACK) - sent   (1 ms clocks), where
 *   sent is TSecr(ACK) (the oldest segment the ACK covers, RFC 7323, as
 *   mainline tcp_lp) or the newest segment's send time (owd_newest=1)
 *   smoothed              sd <- (1 - 1/8) sd + d / 8                 (L1)
 *   early indication when sd > d_min + delta (d_max - d_min)         (L2)
 *   first indication: w <- w / 2 and an inference time-out of
 *   itt = itt_rtts * RTT starts; no window growth while it runs;
 *   another indication before it expires: w <- 1                     (L3)
 *   Reactions are at most once per RTT (the previous one must show).
 */
#ifndef LFNLAB_HSTCPLP_MATH_H
#define LFNLAB_HSTCPLP_MATH_H

#include "stacks_compat.h"

/* ---- fixed-point log2 / exp2, Q16 ---------------------------------- */

#define HS_Q			16
#define HS_ONE			(1U << HS_Q)

/*
 * log2(x) in Q16 for x >= 1 (x = 0 is treated as 1).  Integer part from
 * the top bit, fraction by repeated squaring of the mantissa.
 */
static inline s32 hs_log2_q16(u64 x)
{
	int n, i;
	u64 m;
	s32 res;

	if (x == 0)
		x = 1;
	n = fls64(x) - 1;
	m = n >= 31 ? x >> (n - 31) : x << (31 - n);	/* Q31, in [1, 2) */
	res = n << HS_Q;
	for (i = HS_Q - 1; i >= 0; i--) {
		m = (m * m) >> 31;
		if (m >= (2ULL << 31)) {
			m >>= 1;
			res |= 1 << i;
		}
	}
	return res;
}

/* 2^(2^-i) in Q30 for i = 1..16 (computed offline from the definition). */
static const u32 hs_exp2_frac_q30[HS_Q] = {
	1518500250U, 1276901417U, 1170923762U, 1121280436U,
	1097253708U, 1085434106U, 1079572136U, 1076653033U,
	1075196443U, 1074468888U, 1074105294U, 1073923544U,
	1073832680U, 1073787251U, 1073764537U, 1073753181U,
};

/* 2^(y / 65536) in Q16; y may be negative; result saturates near 2^48. */
static inline u64 hs_exp2_q16(s32 y)
{
	s32 k = y >> HS_Q;			/* floor */
	u32 f = (u32)y & (HS_ONE - 1);
	u64 r = 1ULL << 30;			/* Q30 */
	int i;

	for (i = 0; i < HS_Q; i++)
		if (f & (1U << (HS_Q - 1 - i)))
			r = (r * hs_exp2_frac_q30[i]) >> 30;
	/* r is 2^frac in Q30; scale by 2^k and convert to Q16 */
	k -= 30 - HS_Q;
	if (k >= 0)
		return k > 32 ? ~0ULL : r << k;
	return -k >= 63 ? 0 : r >> -k;
}

/* ---- HighSpeed TCP a(w), b(w) -------------------------------------- */

#define HS_LOW_WINDOW		38U
#define HS_HIGH_WINDOW		83000U
#define HS_HIGH_DECREASE_Q16	6554U		/* 0.1 */
#define HS_HALF_Q16		(HS_ONE / 2)	/* 0.5 */
#define HS_LOW_P_INV		1000U		/* Low_P = 1e-3 */
#define HS_P_SPAN		10000U		/* Low_P / High_P = 1e4 */

/* f(w) of (H1)/(H2) in Q16, clamped to [0, 1]. */
static inline u32 hs_frac_q16(u32 w)
{
	s32 lw, llo, lhi;

	if (w <= HS_LOW_WINDOW)
		return 0;
	if (w >= HS_HIGH_WINDOW)
		return HS_ONE;
	lw = hs_log2_q16(w);
	llo = hs_log2_q16(HS_LOW_WINDOW);
	lhi = hs_log2_q16(HS_HIGH_WINDOW);
	return (u32)div_u64((u64)(lw - llo) << HS_Q, (u32)(lhi - llo));
}

/* b(w) of (H1) in Q16. */
static inline u32 hs_b_q16(u32 w)
{
	u32 f = hs_frac_q16(w);

	return HS_HALF_Q16 -
	       (u32)(((u64)(HS_HALF_Q16 - HS_HIGH_DECREASE_Q16) * f) >> HS_Q);
}

/* a(w) of (H3) in Q16 (not rounded). */
static inline u64 hs_a_q16(u32 w)
{
	u32 f, b;
	s32 log2_p, log2_a;

	if (w <= HS_LOW_WINDOW)
		return HS_ONE;
	if (w > HS_HIGH_WINDOW)
		w = HS_HIGH_WINDOW;
	f = hs_frac_q16(w);
	b = hs_b_q16(w);
	/* (H2): log2 p = -log2(1/Low_P) - f * log2(Low_P/High_P) */
	log2_p = -hs_log2_q16(HS_LOW_P_INV) -
		 (s32)(((s64)hs_log2_q16(HS_P_SPAN) * f) >> HS_Q);
	/* (H3): log2 a = 2 log2 w + log2 p + log2(2b) - log2(2 - b) */
	log2_a = 2 * hs_log2_q16(w) + log2_p +
		 hs_log2_q16(b) - hs_log2_q16(2 * HS_ONE - b) + (s32)HS_ONE;
	return hs_exp2_q16(log2_a);
}

/* a(w) as used per ACK: rounded down, at least 1. */
static inline u32 hs_a(u32 w)
{
	u64 a = hs_a_q16(w) >> HS_Q;

	return a < 1 ? 1 : (u32)a;
}

/*
 * The window at which the table is read when its window column is scaled
 * to pct percent (module parameter hs_window_pct).  A lab that runs a
 * paper's experiment at 1/k of its rate, RTT kept, has windows k times
 * smaller; reading the table at w / k puts each window where the paper's
 * sat (Reno below 38 k, b(w) as at w / k).  a(w) stays in packets per RTT,
 * like Reno's 1.  pct 0 or >= 100 reads it as RFC 3649 gives it.
 */
static inline u32 hs_table_window(u32 w, u32 pct)
{
	u64 x;

	if (pct == 0 || pct >= 100)
		return w;
	x = div_u64((u64)w * 100, pct);
	return x > 0xffffffffULL ? 0xffffffffU : (u32)x;
}

/* Window after a loss: w - b(w) w, at least 2. */
static inline u32 hs_decrease(u32 w, u32 b_q16)
{
	u32 cut = (u32)(((u64)w * b_q16) >> HS_Q);
	u32 nw = w - cut;

	return nw < 2 ? 2 : nw;
}

/*
 * Additive increase of a packets per window: w grows by a/w per acked
 * packet; *cnt accumulates fractions (units of 1/w, Linux's snd_cwnd_cnt).
 */
static inline u32 hs_increase(u32 w, u32 *cnt, u32 a, u32 acked)
{
	if (w == 0)
		w = 1;
	*cnt += a * acked;
	if (*cnt >= w) {
		u32 inc = *cnt / w;

		*cnt -= inc * w;
		w += inc;
	}
	return w;
}

/* ---- TCP-LP one-way-delay inference --------------------------------- */

#define HLP_SOWD_SHIFT		3		/* (L1) gain 1/8 */
#define HLP_OWD_ORIGIN		(1U << 20)	/* OWD values are kept as ms + this */
#define HLP_OWD_LIMIT		(1U << 21)
#define HLP_CLOCK_CHECK_MS	1000U		/* check the peer's clock after 1 s */
#define HLP_SETTLE_SAMPLES	(1U << HLP_SOWD_SHIFT)	/* one EWMA time constant */

#define HLP_F_SAMPLE		0x01	/* at least one OWD sample */
#define HLP_F_CLOCK_OK		0x02	/* peer clock ticks ~1 kHz */
#define HLP_F_CLOCK_BAD		0x04	/* peer clock unusable */
#define HLP_F_REACTED		0x08	/* an early indication was acted on */
#define HLP_F_SETTLING		0x10	/* ACKs still cover data sent before it */

enum hlp_action {
	HLP_NONE = 0,
	HLP_HALVE = 1,		/* first indication: w <- w / 2 */
	HLP_TO_ONE = 2,		/* indication within itt: w <- 1 */
};

struct hlp_core {
	u32 owd_ref;		/* TSval - TSecr of the first sample */
	u32 owd_min;		/* d_min, ms + HLP_OWD_ORIGIN */
	u32 owd_max;		/* d_max, ms + HLP_OWD_ORIGIN */
	u32 sowd_q3;		/* smoothed OWD (same origin) << 3 */
	u32 clk_local0;		/* local ms clock at the first sample */
	u32 clk_remote0;	/* peer's TSval at the first sample */
	u32 last_react_ms;	/* local time of the last reaction */
	u32 itt_ms;		/* inference time-out set at that reaction */
	u32 reactions;		/* early indications acted on */
	u32 react_seq;		/* snd_nxt at the last reaction */
	u32 fresh;		/* samples since the smoothed delay restarted */
	u8 flags;
};

static inline void hlp_core_init(struct hlp_core *c)
{
	c->owd_ref = 0;
	c->owd_min = 0;
	c->owd_max = 0;
	c->sowd_q3 = 0;
	c->clk_local0 = 0;
	c->clk_remote0 = 0;
	c->last_react_ms = 0;
	c->itt_ms = 0;
	c->reactions = 0;
	c->react_seq = 0;
	c->fresh = 0;
	c->flags = 0;
}

/*
 * Feed one ACK's timestamps (TSval = peer's clock when it sent the ACK,
 * sent = our clock when we sent the timed segment) seen at local time
 * now_ms; snd_una is the sender's after this ACK.  The unknown offset between the two clocks cancels because
 * only differences to d_min and d_max are used.  Once, after
 * HLP_CLOCK_CHECK_MS, checks that the peer's timestamp clock runs at our
 * rate (within 1/8); if not, the inference is marked unusable.
 */
static inline void hlp_owd_sample(struct hlp_core *c, u32 tsval, u32 sent,
				  u32 now_ms, u32 snd_una)
{
	bool settled = false;

	s32 rel;
	u32 d;

	if (!(c->flags & HLP_F_SAMPLE)) {
		c->owd_ref = tsval - sent;
		c->clk_local0 = now_ms;
		c->clk_remote0 = tsval;
		c->owd_min = HLP_OWD_ORIGIN;
		c->owd_max = HLP_OWD_ORIGIN;
		c->sowd_q3 = HLP_OWD_ORIGIN << HLP_SOWD_SHIFT;
		c->flags |= HLP_F_SAMPLE;
	}

	if (!(c->flags & (HLP_F_CLOCK_OK | HLP_F_CLOCK_BAD))) {
		u32 dl = now_ms - c->clk_local0;

		if (dl >= HLP_CLOCK_CHECK_MS) {
			u32 dr = tsval - c->clk_remote0;
			u32 diff = dr > dl ? dr - dl : dl - dr;

			c->flags |= diff <= dl / 8 ? HLP_F_CLOCK_OK
						   : HLP_F_CLOCK_BAD;
		}
	}

	rel = (s32)((tsval - sent) - c->owd_ref);
	if (rel < -(s32)HLP_OWD_ORIGIN)
		rel = -(s32)HLP_OWD_ORIGIN;
	d = (u32)(rel + (s32)HLP_OWD_ORIGIN);
	if (d > HLP_OWD_LIMIT)
		d = HLP_OWD_LIMIT;

	if (d < c->owd_min)
		c->owd_min = d;
	if (d > c->owd_max)
		c->owd_max = d;
	/*
	 * After a reaction the ACKs of one more window still report the queue
	 * the flow built before it: judged again, they would read as a second
	 * indication and send the window to 1 on an idle path.  The smoothed
	 * delay restarts (from d_min) at the first segment sent after the
	 * reaction, and is judged again after one time constant of samples.
	 */
	if ((c->flags & HLP_F_SETTLING) && !c->fresh &&
	    (s32)(snd_una - c->react_seq) > 0)
		settled = true;
	if (settled) {
		/* restart from "no queue": one late packet weighs 1/8 */
		c->sowd_q3 = c->owd_min << HLP_SOWD_SHIFT;
		c->fresh = 1;
	}
	/* (L1): sd <- sd - sd/8 + d/8, kept << 3 */
	c->sowd_q3 = c->sowd_q3 - (c->sowd_q3 >> HLP_SOWD_SHIFT) + d;
	if (!settled && c->fresh) {
		if (++c->fresh >= HLP_SETTLE_SAMPLES) {
			/* one time constant of new samples: judge again;
			 * a single late packet is not a queue */
			c->flags &= ~HLP_F_SETTLING;
			c->fresh = 0;
		}
	}
}

/*
 * The local send time (ms, on the TSecr clock: skb time + tsoffset) of the
 * segment an ACK's one-way delay sample times.  TSecr echoes the oldest
 * segment the ACK covers (RFC 7323).  A delayed ACK covers two, and at a
 * window of a few packets the two go out up to an RTT apart, ACK-clocked:
 * timed from the first, the gap between them reads as queue.  Alone on an
 * idle 10 ms, 100 Mbit/s path HSTCP-LP stayed at 2-3 packets (2.7-3.1
 * Mbit/s, about 80 reactions in 40 s) in 4 of 9 seed000-table1 runs; this
 * gap is the suspect, and owd_newest=1 the experiment.  The newest
 * segment was sent rtt_us before now (the kernel's RTT sample of the last
 * segment acked); the receiver's ACK leaves when it arrives.  Returns false
 * when the ACK gives no such sample (retransmitted data: rtt_us < 0).
 */
static inline bool hlp_timed_send_ms(bool newest, u32 tsecr, u64 now_us,
				     s64 rtt_us, u32 tsoffset, u32 *sent_ms)
{
	if (!newest) {
		*sent_ms = tsecr;
		return tsecr != 0;
	}
	if (rtt_us < 0 || (u64)rtt_us > now_us)
		return false;
	*sent_ms = (u32)div_u64(now_us - (u64)rtt_us, 1000) + tsoffset;
	return true;
}

/*
 * Whether an ACK's timestamps measure the path: an ACK for a single segment
 * may have waited out the receiver's delayed-ACK timer (40 ms in Linux), and
 * its TSval - TSecr then reads as 40 ms of queue.  With the window at 1 that
 * is every ACK: each looked like early congestion and held the window at 1
 * for good.  ACKs for two or more segments are sent at once.
 */
static inline bool hlp_ack_measures_path(u32 pkts_acked)
{
	return pkts_acked >= 2;
}

/* Inference usable: samples seen and the peer's clock passed the check. */
static inline bool hlp_usable(const struct hlp_core *c)
{
	return (c->flags & HLP_F_CLOCK_OK) != 0;
}

/* Threshold of (L2) above d_min, in ms << 3. */
static inline u32 hlp_threshold_q3(const struct hlp_core *c, u32 delta_pct)
{
	u32 spread = c->owd_max - c->owd_min;

	return (u32)div_u64((u64)spread * delta_pct << HLP_SOWD_SHIFT, 100);
}

/*
 * The threshold in force, ms << 3: (L2)'s, or floor_us when that is more.
 * d_max - d_min of an idle path can be one late sample (min_spread_ms, 5),
 * whose 15 % (750 us) is under the 1 ms timestamp tick: the smoothed delay
 * of an empty queue, which moves in whole ticks, then crosses it.  A floor
 * of two ticks keeps quantization from reading as a queue.  floor_us 0
 * (the default) is TCP-LP as published.
 */
static inline u32 hlp_threshold_in_force_q3(const struct hlp_core *c,
					    u32 delta_pct, u32 floor_us)
{
	u32 t = hlp_threshold_q3(c, delta_pct);
	u32 f = (u32)div_u64((u64)floor_us << HLP_SOWD_SHIFT, 1000);

	return t > f ? t : f;
}

/* Smoothed queueing delay above d_min in ms << 3. */
static inline u32 hlp_queue_q3(const struct hlp_core *c)
{
	u32 base = c->owd_min << HLP_SOWD_SHIFT;

	return c->sowd_q3 > base ? c->sowd_q3 - base : 0;
}

/* No window growth while the inference time-out runs (L3). */
static inline bool hlp_in_inference(const struct hlp_core *c, u32 now_ms)
{
	return (c->flags & HLP_F_REACTED) &&
	       (u32)(now_ms - c->last_react_ms) < c->itt_ms;
}

/*
 * (L2)/(L3): decide the reaction at local time now_ms.  srtt_ms is the
 * smoothed RTT; min_spread_ms is the smallest d_max - d_min for which the
 * 1 ms timestamps can tell a queue from clock jitter; min_threshold_us the
 * least threshold (hlp_threshold_in_force_q3); snd_nxt marks the data sent
 * before a reaction (no indication until it is acknowledged).
 */
static inline enum hlp_action hlp_check(struct hlp_core *c, u32 now_ms,
					u32 snd_nxt, u32 srtt_ms,
					u32 delta_pct, u32 itt_rtts,
					u32 min_spread_ms, u32 min_threshold_us)
{
	enum hlp_action act = HLP_HALVE;

	if (!hlp_usable(c) || (c->flags & HLP_F_SETTLING))
		return HLP_NONE;
	if (c->owd_max - c->owd_min < min_spread_ms)
		return HLP_NONE;
	if (hlp_queue_q3(c) <=
	    hlp_threshold_in_force_q3(c, delta_pct, min_threshold_us))
		return HLP_NONE;
	if (srtt_ms == 0)
		srtt_ms = 1;
	if (c->flags & HLP_F_REACTED) {
		u32 since = now_ms - c->last_react_ms;

		if (since < srtt_ms)
			return HLP_NONE;	/* last reaction not visible yet */
		if (since < c->itt_ms)
			act = HLP_TO_ONE;
	}
	c->flags |= HLP_F_REACTED | HLP_F_SETTLING;
	c->react_seq = snd_nxt;
	c->fresh = 0;
	c->last_react_ms = now_ms;
	c->itt_ms = (itt_rtts ? itt_rtts : 1) * srtt_ms;
	c->reactions++;
	return act;
}

#endif /* LFNLAB_HSTCPLP_MATH_H */
