// SPDX-License-Identifier: GPL-2.0
/*
 * test_hstcplp.c - checks the HSTCP-LP arithmetic of hstcplp/hstcplp_math.h,
 * the same header the kernel module compiles: fixed-point log2/exp2, RFC
 * 3649's a(w) and b(w) against a double-precision evaluation of the same
 * formulas, the per-ACK increase, and TCP-LP's inference decisions.
 */
#include <math.h>
#include "check.h"
#include "hstcplp_math.h"

/* RFC 3649 formulas in floating point (reference only). */
static double ref_f(double w)
{
	return (log(w) - log(38.0)) / (log(83000.0) - log(38.0));
}

static double ref_b(double w)
{
	if (w <= 38)
		return 0.5;
	if (w > 83000)
		w = 83000;
	return (0.1 - 0.5) * ref_f(w) + 0.5;
}

static double ref_a(double w)
{
	double p, b;

	if (w <= 38)
		return 1.0;
	if (w > 83000)
		w = 83000;
	b = ref_b(w);
	p = exp(log(1e-3) + ref_f(w) * (log(1e-7) - log(1e-3)));
	return w * w * p * 2 * b / (2 - b);
}

static void check_fixed_point(void)
{
	static const unsigned long long xs[] = {
		1, 2, 3, 38, 1000, 10000, 83000, 1099511640121ULL };
	static const double ys[] = { -5.5, -0.25, 0, 0.5, 1, 6.18, 10.3 };
	unsigned i;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "log2(%llu) in Q16", xs[i]);
		CHECK_NEAR(hs_log2_q16(xs[i]) / 65536.0, log2((double)xs[i]),
			   4.0 / 65536, what);
	}
	for (i = 0; i < sizeof(ys) / sizeof(ys[0]); i++) {
		char what[64];
		double want = exp2(ys[i]);
		s32 y = (s32)lround(ys[i] * 65536);

		snprintf(what, sizeof(what), "exp2(%g) in Q16", ys[i]);
		CHECK_NEAR(hs_exp2_q16(y) / 65536.0, want,
			   want * 2e-4 + 2.0 / 65536, what);
	}
}

static void check_table(void)
{
	u32 w;
	int bad_a = 0, bad_b = 0, n = 0;

	/* RFC 3649: Reno below Low_Window */
	CHECK_EQ(hs_a(38), 1, "a(38) = 1");
	CHECK_EQ(hs_b_q16(38), 32768, "b(38) = 0.5");
	CHECK_EQ(hs_a(10), 1, "a(10) = 1 (Reno)");
	CHECK_EQ(hs_b_q16(1), 32768, "b(1) = 0.5 (Reno)");
	/* hand-evaluated (H1)-(H3); these rows agree with RFC 3649's table */
	CHECK_EQ(hs_a(118), 2, "a(118) = 2 (a = 2.03)");
	CHECK_NEAR(hs_b_q16(118) / 65536.0, 0.4411, 0.001, "b(118) = 0.44");
	CHECK_EQ(hs_a(221), 3, "a(221) = 3 (a = 3.04)");
	CHECK_NEAR(hs_b_q16(221) / 65536.0, 0.4084, 0.001, "b(221) = 0.41");
	CHECK_EQ(hs_a(347), 4, "a(347) = 4 (a = 4.06)");
	CHECK_EQ(hs_a(1529), 10, "a(1529) = 10 (a = 10.17)");
	CHECK_NEAR(hs_b_q16(1529) / 65536.0, 0.3078, 0.001, "b(1529) = 0.31");
	/* High_Window: b = High_Decrease = 0.1, a = 72.5 */
	CHECK_NEAR(hs_b_q16(83000) / 65536.0, 0.1, 0.0005, "b(83000) = 0.1");
	CHECK_EQ(hs_a(83000), 72, "a(83000) = 72 (a = 72.52)");
	CHECK_EQ(hs_a(500000), hs_a(83000), "a(w > High_Window) = a(83000)");
	CHECK_EQ(hs_b_q16(500000), hs_b_q16(83000), "b(w > High_Window) = b(83000)");

	/* sweep: fixed point vs double evaluation of the same formulas */
	for (w = 39; w <= 100000; w += w / 16 + 1) {
		double ra = ref_a(w), rb = ref_b(w);
		double frac = ra - floor(ra);
		long want_a = (long)floor(ra) < 1 ? 1 : (long)floor(ra);

		n++;
		if (fabs(hs_b_q16(w) / 65536.0 - rb) > 1e-4)
			bad_b++;
		/* near an integer crossing either side is acceptable */
		if ((long)hs_a(w) != want_a &&
		    !(frac < 0.002 || frac > 0.998))
			bad_a++;
	}
	CHECK(bad_b == 0, "b(w) within 1e-4 of the formula at %d windows (%d off)",
	      n, bad_b);
	CHECK(bad_a == 0, "a(w) = floor(formula) at %d windows (%d off)", n, bad_a);
}

static void check_window_steps(void)
{
	u32 cnt = 0, w = 100, i;

	CHECK_EQ(hs_decrease(38, hs_b_q16(38)), 19, "loss at w=38 halves to 19");
	CHECK_EQ(hs_decrease(83000, hs_b_q16(83000)), 74700,
		 "loss at w=83000 keeps 90%: 74700");
	CHECK_EQ(hs_decrease(3, hs_b_q16(3)), 2, "loss floor is 2 packets");

	for (i = 0; i < 100; i++)
		w = hs_increase(w, &cnt, 1, 1);
	CHECK_EQ(w, 101, "a=1: +1 packet after one window (100 ACKs)");

	w = 1529;
	cnt = 0;
	for (i = 0; i < 1529; i++)
		w = hs_increase(w, &cnt, hs_a(1529), 1);
	CHECK(w >= 1538 && w <= 1539,
	      "a=10 at w=1529: ~+10 packets per window (got +%u)", w - 1529);

	w = 1000;
	cnt = 0;
	w = hs_increase(w, &cnt, 8, 250);	/* stretch ACK for 250 packets */
	CHECK_EQ(w, 1002, "a=8, 250 packets acked at once: +2 (2000/1000)");
	CHECK_EQ(cnt, 0, "remainder after the stretch ACK");
}

static void check_scaled_table(void)
{
	CHECK_EQ(hs_table_window(1000, 100), 1000, "pct 100 reads the table as is");
	CHECK_EQ(hs_table_window(1000, 0), 1000, "pct 0 reads the table as is");
	CHECK_EQ(hs_table_window(245, 16), 1531, "pct 16: w 245 read at 1531");
	CHECK_EQ(hs_a(hs_table_window(245, 16)), hs_a(1531),
		 "pct 16: a(245) is the RFC's a(1531)");
	CHECK_EQ(hs_a(hs_table_window(6, 16)), 1,
		 "pct 16: Reno up to 38 x 0.16 = 6 packets");
	CHECK_EQ(hs_b_q16(hs_table_window(6, 16)), 32768,
		 "pct 16: b = 0.5 up to 6 packets");
	CHECK(hs_a(hs_table_window(7, 16)) >= 1 &&
	      hs_b_q16(hs_table_window(7, 16)) < 32768,
	      "pct 16: HighSpeed from 7 packets (read at 43)");
	CHECK_EQ(hs_table_window(0xffffffffU, 1), 0xffffffffU,
		 "a huge window saturates instead of wrapping");
}

/*
 * Feed one OWD sample: local clock now, peer clock now + skew, delay d;
 * una is snd_una after the ACK (which data it covers).
 */
static void feed(struct hlp_core *c, u32 now, u32 owd, u32 peer_num,
		 u32 peer_den, u32 una)
{
	u32 tsecr = now - 100;				/* sent 100 ms ago */
	u32 tsval = (u32)((u64)now * peer_num / peer_den) + 7777 + owd;

	hlp_owd_sample(c, tsval, tsecr, now, una);
}

static void check_lp(void)
{
	struct hlp_core c;
	u32 t, i, una = 0;
	enum hlp_action act;
	int first_eci = -1;

	hlp_core_init(&c);
	CHECK(!hlp_usable(&c), "no samples: inference off (plain HSTCP)");
	CHECK_EQ(hlp_check(&c, 0, 0, 100, 15, 3, 5, 0), HLP_NONE,
		 "no samples: no reaction");

	/* 1 s of samples at OWD 50 ms: clock check passes */
	for (t = 10000; t < 11000; t += 10)
		feed(&c, t, 50, 1, 1, ++una);
	CHECK(!hlp_usable(&c), "before 1 s: clock not verified yet");
	feed(&c, 11000, 50, 1, 1, ++una);
	CHECK(hlp_usable(&c), "after 1 s at the same rate: inference on");
	CHECK_EQ(hlp_check(&c, 11000, 1000, 100, 15, 3, 5, 0), HLP_NONE,
		 "d_max - d_min = 0 < min_spread: no reaction");

	/* queue builds: OWD 150 ms.  d_min 50, d_max 150: threshold 65.
	 * sd after k samples = 150 - 100 (7/8)^k: 62.5, 73.4 -> 2nd sample */
	t = 11010;
	for (i = 1; i <= 3 && first_eci < 0; i++, t += 10) {
		feed(&c, t, 150, 1, 1, ++una);
		act = hlp_check(&c, t, 2000, 100, 15, 3, 5, 0);
		if (act != HLP_NONE) {
			first_eci = (int)i;
			CHECK_EQ(act, HLP_HALVE, "first early indication halves");
		}
	}
	CHECK_EQ(first_eci, 2, "indication on the 2nd sample (sd 62.5 -> 73.4 > 65)");
	CHECK_EQ(hlp_threshold_q3(&c, 15) >> 3, 15, "threshold = 15% of 100 ms");
	t -= 10;				/* time of the reaction */
	CHECK(hlp_in_inference(&c, t + 1), "inference time-out running");
	CHECK_EQ(hlp_check(&c, t + 50, 2000, 100, 15, 3, 5, 0), HLP_NONE,
		 "within one RTT of the halving: no second reaction");

	/* The ACKs of the window sent before the halving still carry its
	 * queue (one RTT and more later): they must not count again. */
	for (i = 0; i < 20; i++)
		feed(&c, t + 100 + i, 150, 1, 1, 1990);
	CHECK_EQ(hlp_check(&c, t + 150, 3000, 100, 15, 3, 5, 0), HLP_NONE,
		 "stale queue from before the halving: no second reaction");

	/* Idle path: the data sent after the halving sees no queue, but one
	 * packet comes late (TCG timers): no single sample decides. */
	feed(&c, t + 160, 150, 1, 1, 2001);
	CHECK_EQ(hlp_check(&c, t + 160, 3000, 100, 15, 3, 5, 0), HLP_NONE,
		 "one late packet after the halving: no reaction yet");
	for (i = 1; i < 8; i++)
		feed(&c, t + 160 + i, 50, 1, 1, 2001 + i);
	CHECK_EQ(hlp_check(&c, t + 168, 3000, 100, 15, 3, 5, 0), HLP_NONE,
		 "after the halving the queue is gone: no reaction");

	/* Competing traffic keeps the queue: the next reaction needs its own
	 * window of samples after this one. */
	for (i = 0; i < 8; i++)
		feed(&c, t + 170 + i, 150, 1, 1, 2010 + i);
	CHECK_EQ(hlp_check(&c, t + 175, 3000, 100, 15, 3, 5, 0), HLP_TO_ONE,
		 "queue persists after the halving, inside itt = 300 ms: window to 1");
	CHECK(hlp_in_inference(&c, t + 175 + 299), "itt restarted at that reaction");
	CHECK(!hlp_in_inference(&c, t + 175 + 300), "itt over after 3 RTTs");

	/* delay falls back to the minimum: no indication */
	for (i = 0; i < 60; i++)
		feed(&c, t + 500 + i, 50, 1, 1, 3001 + i);
	CHECK_EQ(hlp_check(&c, t + 560, 4000, 100, 15, 3, 5, 0), HLP_NONE,
		 "delay back at d_min: no indication");
	/* congestion again long after itt: halve, not 1 */
	for (i = 0; i < 10; i++)
		feed(&c, t + 1000 + i, 150, 1, 1, 4100 + i);
	CHECK_EQ(hlp_check(&c, t + 1010, 4000, 100, 15, 3, 5, 0), HLP_HALVE,
		 "indication after itt expired: halve again");
	CHECK_EQ(c.reactions, 3, "three reactions counted");

	/* a lone segment's ACK may be a delayed one: not a path sample */
	CHECK(!hlp_ack_measures_path(1), "ACK for one segment (maybe delayed 40 ms): no OWD sample");
	CHECK(hlp_ack_measures_path(2), "ACK for two segments (sent at once): OWD sample");

	/* peer timestamp clock at 250 Hz: unusable, fall back */
	hlp_core_init(&c);
	for (t = 0; t <= 1200; t += 10)
		feed(&c, t, 50, 1, 4, t);
	CHECK(!hlp_usable(&c) && (c.flags & HLP_F_CLOCK_BAD),
	      "peer clock at 250 Hz: inference off, fall back to HSTCP");

	/* peer clock 5 % fast still counts as 1 kHz */
	hlp_core_init(&c);
	for (t = 0; t <= 1200; t += 10)
		feed(&c, t, 50, 21, 20, t);
	CHECK(hlp_usable(&c), "peer clock 5%% fast: inference on");
}

/*
 * One ACK for a delayed-ACK pair on an idle path (OWD 5 ms each way): the
 * first segment left at s, the second gap ms later (ACK-clocked at a small
 * window); the receiver acks on the second's arrival.  Local clock in us,
 * peer clock = local ms + 7777, tsoffset 1000.
 */
static void feed_pair(struct hlp_core *c, bool newest, u32 s, u32 gap,
		      u32 una)
{
	u32 ack_sent = s + gap + 5, now = ack_sent + 5, sent_ms = 0;
	u64 now_us = (u64)now * 1000;
	s64 rtt_us = (s64)(now - (s + gap)) * 1000;

	if (hlp_timed_send_ms(newest, s + 1000, now_us, rtt_us, 1000, &sent_ms))
		hlp_owd_sample(c, ack_sent + 7777, sent_ms, now, una);
}

static void check_timed_send(void)
{
	struct hlp_core c;
	u32 sent = 0, t, una, mode;
	int reactions[2];

	CHECK(hlp_timed_send_ms(false, 4242, 5000000, 10400, 1000, &sent) &&
	      sent == 4242, "TSecr mode: the echoed timestamp");
	CHECK(!hlp_timed_send_ms(false, 0, 5000000, 10400, 1000, &sent),
	      "TSecr mode: no echo, no sample");
	CHECK(hlp_timed_send_ms(true, 4242, 5000000, 10400, 1000, &sent) &&
	      sent == 4989 + 1000,
	      "newest mode: now - RTT of the newest segment, + tsoffset (5000 ms - 10.4 ms -> 4989)");
	CHECK(!hlp_timed_send_ms(true, 4242, 5000000, -1, 1000, &sent),
	      "newest mode: no RTT sample (retransmitted data), no OWD sample");

	/* 1.5 s of back-to-back pairs, one 10 ms queue (slow start's) so
	 * d_max - d_min = 10 ms and the threshold is 1.5 ms; then a window of
	 * 3: pairs 4 ms apart on the idle path. */
	for (mode = 0; mode < 2; mode++) {
		hlp_core_init(&c);
		una = 0;
		for (t = 10000; t < 11500; t += 10)
			feed_pair(&c, mode, t, 0, ++una);
		/* one ACK 10 ms later than the path's (the queue) */
		hlp_owd_sample(&c, 11620 + 15 + 7777, 11620 + 1000, 11640, ++una);
		for (t = 11700; t < 12000; t += 10)
			feed_pair(&c, mode, t, 0, ++una);
		CHECK(hlp_usable(&c), "clock check passed");
		CHECK_EQ(hlp_check(&c, 12000, una, 10, 15, 3, 5, 0), HLP_NONE,
			 "back-to-back pairs on the idle path: no reaction");
		reactions[mode] = 0;
		for (t = 12000; t < 13000; t += 10) {
			feed_pair(&c, mode, t, 4, ++una);
			if (hlp_check(&c, t + 14, una, 10, 15, 3, 5, 0) != HLP_NONE)
				reactions[mode]++;
		}
	}
	CHECK(reactions[0] > 5,
	      "timed from TSecr, the 4 ms between a pair's segments reads as queue: reactions on an idle path");
	CHECK_EQ(reactions[1], 0,
		 "timed from the newest segment: the idle path shows no queue");
}

/*
 * An idle path whose d_max - d_min is one late sample (5 ms = min_spread):
 * the threshold is 15 % of it, 750 us, under the 1 ms tick, and an empty
 * queue the timestamps read as 1 ms above d_min crosses it.  A floor of two
 * ticks (min_threshold_us 2000) keeps it from reacting; a real 10 ms queue
 * is still answered.
 */
static void check_threshold_floor(void)
{
	static const u32 floors[] = { 0, 2000 };
	struct hlp_core c;
	u32 t, una, k, reactions[2];

	for (k = 0; k < 2; k++) {
		hlp_core_init(&c);
		una = 0;
		for (t = 10000; t < 11100; t += 10)
			feed(&c, t, 50, 1, 1, ++una);
		feed(&c, 11100, 55, 1, 1, ++una);	/* one late sample */
		CHECK_EQ(hlp_threshold_q3(&c, 15), 6,
			 "15 % of a 5 ms spread: 750 us (6 eighths of a ms)");
		CHECK_EQ(hlp_threshold_in_force_q3(&c, 15, floors[k]),
			 k ? 16U : 6U, "the floor lifts it to 2 ms, 0 leaves it");
		reactions[k] = 0;
		/* quantization: the empty queue reads 1 ms above d_min */
		for (t = 11110; t < 13000; t += 10) {
			feed(&c, t, 51, 1, 1, ++una);
			if (hlp_check(&c, t, una, 10, 15, 3, 5, floors[k]) !=
			    HLP_NONE)
				reactions[k]++;
		}
		/* a 10 ms queue is answered with or without the floor */
		for (t = 14000; t < 14100; t += 10)
			feed(&c, t, 60, 1, 1, ++una);
		CHECK(hlp_check(&c, 14100, una, 10, 15, 3, 5, floors[k]) !=
		      HLP_NONE, "a 10 ms queue: a reaction");
	}
	CHECK(reactions[0] > 10,
	      "no floor: a 1 ms tick above d_min reads as a queue on an idle path");
	CHECK_EQ(reactions[1], 0, "a 2 ms floor: no reaction to the tick");
}

int main(void)
{
	check_fixed_point();
	check_table();
	check_window_steps();
	check_scaled_table();
	check_lp();
	check_timed_send();
	check_threshold_floor();
	return check_summary("hstcplp");
}
